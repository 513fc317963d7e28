#!/bin/bash
# test_readme_tour.sh README BIN WORK: runs each line of README's "A short tour" block in the empty folder WORK, as a
# user pastes them, with BIN first on PATH. Lines are shrunk by appending overrides (small data, one epoch); the
# paper's pipelines (hours) and the line that stops a running sweep (tests/apps/cli tests it) are left out. A line
# that fails stops the test with the line and its output.
set -u
readme=$1 bin=$2 work=$3
export PATH="$bin:$PATH"
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1

lines=$(awk '/^## A short tour/ {tour = 1} tour && /^```sh/ {block = 1; next} block && /^```/ {exit} block {print}' "$readme")
[ -n "$lines" ] || { echo "no tour block found in $readme"; exit 1; }

# What each kind of line gets appended: enough to keep it to seconds, nothing that changes which files it writes.
shrink() {
  case "$1" in
    "loci generate configs/lst.yaml"*) echo "splits.train=64 splits.test=16" ;;
    "loci generate configs/network.yaml"*) echo "graph.nodes=15 splits.train=8 splits.test=4 splits.test_noise=4 windows.length=5" ;;
    "loci generate configs/parcels.yaml"*)
      echo "splits.train=8 splits.test=4 subjects.train=2 subjects.test=1 parcels.count=20 volume.voxel_mm=12 windows.length=10 windows.stride=10" ;;
    "loci generate configs/images.yaml"*) echo "splits.train=64 splits.validation=16 splits.test=16" ;;
    "loci train "*) echo "train.epochs=1" ;;
    "loci run configs/quickstart.yaml"*) echo "generate.splits.train=64 generate.splits.test=16 train.train.epochs=1" ;;
  esac
}

ran=0
while IFS= read -r line; do
  command=$(printf '%s' "$line" | sed -E 's/[[:space:]]+#.*$//')
  case "$command" in
    ""|"loci sweep stop"*|*configs/paper/*) continue ;;
  esac
  full="$command $(shrink "$command")"
  echo "+ $full"
  if ! output=$(timeout 600 bash -c "$full" 2>&1); then
    printf 'tour line failed: %s\n%s\n' "$full" "$output"
    exit 1
  fi
  ran=$((ran + 1))
done <<< "$lines"
[ "$ran" -ge 15 ] || { echo "only $ran tour lines ran: the block was not read whole"; exit 1; }
echo "$ran tour lines ran in $work"
