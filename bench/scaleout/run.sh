#!/usr/bin/env bash
# Samples per second of 1 process vs 2 processes on this machine, for generation (`loci generate` under RANK /
# WORLD_SIZE, the LST dataset) and for data-parallel training (`loci train` as two ranks on 127.0.0.1, the paper's
# model, global batch 128), with PyTorch's DistributedDataParallel (bench/reference/ddp_reference.py) beside the
# training figures in the same run. Every process gets 1 thread, so 2 processes use the 2 cores 1 process leaves
# half idle; the 1-process, 2-thread row is the alternative use of the same cores. Builds nothing: BUILD_DIR must
# hold loci, lst_grid and torch_trainer. Prints a markdown table.
#
#   BUILD_DIR=build bench/scaleout/run.sh [generate_samples] [train_epochs]
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
build="$(cd "${BUILD_DIR:-$root/build}" && pwd)"
loci="$build/bin/loci"
samples="${1:-6000}"
epochs="${2:-3}"
python=/usr/bin/python3
[[ -x "$loci" ]] || { echo "no $loci: build loci, lst_grid and torch_trainer first (or set BUILD_DIR)" >&2; exit 1; }

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cd "$work"
now() { date +%s.%N; }
rate() { awk -v n="$1" -v a="$2" -v b="$3" 'BEGIN { printf "%.0f", n / (b - a) }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2fx", a / b }'; }
port=$((29600 + RANDOM % 300))
# Runs "$@" as ranks 0 and 1 of 2, as torchrun would, and waits for both.
two_ranks() {
  port=$((port + 1))
  RANK=0 WORLD_SIZE=2 MASTER_ADDR=127.0.0.1 MASTER_PORT=$port "$@" & local p0=$!
  RANK=1 WORLD_SIZE=2 MASTER_ADDR=127.0.0.1 MASTER_PORT=$port "$@" & local p1=$!
  wait $p0 && wait $p1
}

cat > gen.yaml <<YAML
include: $root/configs/lst.yaml
splits: {train: $samples, test: 0}
samples_per_shard: 250
YAML
total=$((samples + 108))  # and the 108 human puzzles

echo "| work | processes x threads | samples/s | vs 1 x 1 |"
echo "|---|---|---:|---:|"
# Each run in its own folder with out=data: the resolved config, `out` included, is part of every shard.
mkdir g11 g12 g21
t0=$(now); (cd g11 && "$loci" generate -q ../gen.yaml out=data threads=1); t1=$(now)
g11=$(rate $total $t0 $t1)
echo "| generate LST ($total puzzles) | 1 x 1 | $g11 | 1.00x |"
t0=$(now); (cd g12 && "$loci" generate -q ../gen.yaml out=data threads=2); t1=$(now)
echo "| generate LST ($total puzzles) | 1 x 2 | $(rate $total $t0 $t1) | $(ratio "$(rate $total $t0 $t1)" $g11) |"
t0=$(now); (cd g21 && two_ranks "$loci" generate -q ../gen.yaml out=data threads=1); t1=$(now)
echo "| generate LST ($total puzzles) | 2 x 1 (ranks) | $(rate $total $t0 $t1) | $(ratio "$(rate $total $t0 $t1)" $g11) |"
diff -r g11/data g21/data >/dev/null || { echo "error: 2 ranks made other bytes than 1 process" >&2; exit 1; }

# Training: the paper's model on 2560 generated puzzles, batch 128 (20 steps an epoch), evaluated once at the end;
# samples/s is summary.json's, training time only.
"$loci" generate -q gen.yaml out=data splits.train=2560 samples_per_shard=512
cat > train.yaml <<YAML
include: $root/configs/lst_train.yaml
data: data
out: unused
task: {eval_splits: [human]}
train: {epochs: $epochs, eval_every: 1000, batch_size: 128, progress: false}
YAML
sps() { sed -n 's/.*"samples_per_second": \([0-9.]*\).*/\1/p' "$1/summary.json" | awk '{ printf "%.0f", $1 }'; }
"$loci" train -q train.yaml out=t11 train.threads=1
"$loci" train -q train.yaml out=t12 train.threads=2
two_ranks "$loci" train -q train.yaml out=t21 train.threads=1
t11=$(sps t11)
echo "| train paper model, loci | 1 x 1 | $t11 | 1.00x |"
echo "| train paper model, loci | 1 x 2 | $(sps t12) | $(ratio "$(sps t12)" $t11) |"
echo "| train paper model, loci | 2 x 1 (ranks, c10d gloo) | $(sps t21) | $(ratio "$(sps t21)" $t11) |"
field() { sed -n 's/.*samples_per_s=\([0-9]*\).*/\1/p'; }
p11=$("$python" "$root/bench/reference/ddp_reference.py" --ranks 1 --port $((port + 1)) | field)
p21=$("$python" "$root/bench/reference/ddp_reference.py" --ranks 2 --port $((port + 2)) | field)
echo "| train paper model, PyTorch DDP | 1 x 1 | $p11 | 1.00x |"
echo "| train paper model, PyTorch DDP | 2 x 1 (ranks, gloo) | $p21 | $(ratio $p21 $p11) |"
echo
echo "$(nproc) cores; LST generation byte-identical for 1 process and 2 ranks; training: $epochs epochs of 20 steps," \
  "batch 128 (64 a rank), AdamW, fp32; load average before: $(cut -d' ' -f1-3 /proc/loadavg)."
echo "Command: BUILD_DIR=$build bench/scaleout/run.sh $samples $epochs"
