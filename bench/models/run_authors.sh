#!/usr/bin/env bash
# The paper's model trained by `loci train` beside the authors' own code (bench/reference/authors_paper_model.py,
# their lstnn package and their train()), on each OpenBLAS kernel, taking turns, as a markdown table (issue 20).
#
# Usage: bench/models/run_authors.sh BUILD_DIR LSTNN_DIR DATA_DIR
#   LSTNN_DIR: a checkout of https://github.com/ljhearne/LSTNN_public (not part of loci; MIT licence).
#   DATA_DIR: the paper's puzzles as loci writes them, e.g. runs/quickstart/data after `loci run configs/quickstart.yaml`
#             (or `loci generate configs/lst.yaml out=DIR`).
# Environment: KERNELS (default "unset,Haswell,SkylakeX,Cooperlake"; "unset" runs both sides with OPENBLAS_CORETYPE
# removed from the environment: loci then chooses by itself, the authors' code gets OpenBLAS's own choice), THREADS
# (default 2), TURNS (default 2), PRECISIONS of loci (default "fp32,bf16"; bf16-fused: bf16 with
# train.bf16_products=fused; the authors' code is fp32).
# loci's per-step time is the issue's method: the difference of train_seconds (summary.json) between runs of 20 and
# 140 steps, so start-up and data loading cancel. The authors' side times its own train() over whole epochs (64
# steps of 128 puzzles) after one warm-up epoch. Each side keeps its best turn; the ratios are also given as the median
# over turns of the turn's own ratio (this VM's speed drifts by tens of percent between minutes). Nothing else should
# run on the machine meanwhile.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
[[ $# -eq 3 ]] || { sed -n '5,9p' "$0" >&2; exit 1; }
build="$1" lstnn="$2" data="$3"
loci="$build/bin/loci"
[[ -x "$loci" ]] || { echo "no $loci: build loci first" >&2; exit 1; }
[[ -f "$data/index.json" ]] || { echo "$data has no index.json: it must be a dataset loci wrote (loci generate configs/lst.yaml out=DIR)" >&2; exit 1; }
[[ -d "$lstnn/lstnn" ]] || { echo "$lstnn has no lstnn/ package: it must be a checkout of LSTNN_public" >&2; exit 1; }
kernels="${KERNELS:-unset,Haswell,SkylakeX,Cooperlake}"
threads="${THREADS:-2}"
turns="${TURNS:-2}"
precisions="${PRECISIONS:-fp32,bf16}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# with_kernel K CMD...: runs CMD with OPENBLAS_CORETYPE=K, or without the variable for "unset".
with_kernel() {
  local k="$1"; shift
  if [[ "$k" == unset ]]; then env -u OPENBLAS_CORETYPE "$@"; else env OPENBLAS_CORETYPE="$k" "$@"; fi
}

# loci_rate K PRECISION: puzzles/s of one step from two run lengths; prints "rate kernel-loci-ran".
loci_rate() {
  local k="$1" p="$2" s products=autocast
  [[ "$p" != bf16-fused ]] || { p=bf16; products=fused; }
  local -A seconds
  for s in 20 140; do
    rm -rf "$work/run"
    with_kernel "$k" "$loci" train "$root/configs/lst_train.yaml" data="$data" out="$work/run" train.steps=$s \
      train.eval_every=100000 train.threads="$threads" train.precision="$p" train.bf16_products="$products" seed=0 >"$work/log" 2>&1 ||
      { cat "$work/log" >&2; exit 1; }
    seconds[$s]="$(/usr/bin/python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["train_seconds"])' \
      "$work/run/summary.json")"
  done
  local ran
  ran="$(/usr/bin/python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["blas_kernel"]["kernel"])' \
    "$work/run/summary.json")"
  awk -v a="${seconds[20]}" -v b="${seconds[140]}" -v r="$ran" 'BEGIN { printf "%.0f %s\n", 120 * 128 / (b - a), r }'
}

authors_rate() {
  with_kernel "$1" /usr/bin/python3 "$root/bench/reference/authors_paper_model.py" --lstnn "$lstnn" \
    --threads "$threads" --reps 1 | sed -n 's/.*puzzles_per_s=\([0-9.]*\).*/\1/p'
}

IFS=',' read -ra klist <<<"$kernels"
IFS=',' read -ra plist <<<"$precisions"
declare -A best ran turn_rates  # turn_rates[kernel,side]: that side's rate in each turn, space-separated
for ((turn = 1; turn <= turns; ++turn)); do
  for k in "${klist[@]}"; do
    for p in "${plist[@]}"; do
      read -r rate r < <(loci_rate "$k" "$p") && [[ -n "$rate" ]] ||
        { echo "run_authors.sh: loci train failed (kernel $k, $p); its log is above" >&2; exit 1; }
      ran[$k]="$r"
      [[ "${best[$k,$p]:-0}" -ge "$rate" ]] || best[$k,$p]="$rate"
      turn_rates[$k,$p]+="$rate "
      echo "turn $turn kernel $k: loci $p $rate puzzles/s (kernel $r)" >&2
    done
    rate="$(authors_rate "$k")"
    [[ "${best[$k,authors]:-0}" -ge "$rate" ]] || best[$k,authors]="$rate"
    turn_rates[$k,authors]+="$rate "
    echo "turn $turn kernel $k: authors fp32 $rate puzzles/s" >&2
  done
done

source "$here/turns.sh"  # median_of_ratios

cpu="$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)"
echo "$cpu, $(nproc) cores; $threads threads; best of $turns turns; OPENBLAS_CORETYPE in this shell: ${OPENBLAS_CORETYPE:-not set}"
echo
header="| OPENBLAS_CORETYPE | loci ran |"
rule="|---|---|"
for p in "${plist[@]}"; do header+=" loci $p puzzles/s |"; rule+="---:|"; done
header+=" authors' code fp32 |"; rule+="---:|"
for p in "${plist[@]}"; do header+=" loci $p / authors (best / median of turns) |"; rule+="---:|"; done
echo "$header"; echo "$rule"
for k in "${klist[@]}"; do
  row="| $k | ${ran[$k]} |"
  for p in "${plist[@]}"; do row+=" ${best[$k,$p]} |"; done
  row+=" ${best[$k,authors]} |"
  for p in "${plist[@]}"; do
    row+="$(awk -v a="${best[$k,$p]}" -v b="${best[$k,authors]}" -v m="$(median_of_ratios "${turn_rates[$k,$p]}" "${turn_rates[$k,authors]}")" \
      'BEGIN { printf " %.2fx / %.2fx |", a / b, m }')"
  done
  echo "$row"
done
echo
echo "load average while measuring: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) cores"
