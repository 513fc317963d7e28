#!/usr/bin/env bash
# Shard write/read throughput of loci's C++ data layer next to plain h5py, gzip+shuffle and uncompressed, in one
# run, plus the streaming batch reader's batches/s; prints a markdown table. MB/s count uncompressed sample bytes.
# Builds nothing: point BUILD_DIR at a build tree that has bench_shard_io.
#
#   BUILD_DIR=build bench/datasets/run.sh [shards] [samples_per_shard]
set -euo pipefail

source "$(dirname "${BASH_SOURCE[0]}")/../run_helpers.sh"  # root, bench_binary, field, ...
bench="$(bench_binary bench_shard_io)"
shards="${1:-8}"
per_shard="${2:-10000}"
chunk=512
reps="${REPS:-3}"

common=(--shards "$shards" --samples-per-shard "$per_shard" --chunk "$chunk" --reps "$reps")
cpp_out="$("$bench" "${common[@]}")"
py_out="$(/usr/bin/python3 "$root/bench/reference/shard_io_reference.py" "${common[@]}")"

pick() { grep "codec=$2 op=$3" <<<"$1" || true; }

echo "| codec | op | C++ loci MB/s | h5py MB/s | C++ / h5py | C++ MB per CPU-s | h5py MB per CPU-s | on disk (C++ / h5py) MB |"
echo "|---|---|---:|---:|---:|---:|---:|---:|"
for codec in gzip4+shuffle none; do
  for op in write read; do
    c="$(pick "$cpp_out" "$codec" "$op")"
    p="$(pick "$py_out" "$codec" "$op")"
    cr="$(field mb_per_s <<<"$c")"
    pr="$(field mb_per_s <<<"$p")"
    disk="-"
    [[ $op == write ]] && disk="$(field disk_mb <<<"$c") / $(field disk_mb <<<"$p")"
    printf '| %s | %s | %s | %s | %sx | %s | %s | %s |\n' "$codec" "$op" "$cr" "$pr" \
      "$(awk -v a="$cr" -v b="$pr" 'BEGIN { printf "%.1f", a / b }')" \
      "$(field mb_per_cpu_s <<<"$c")" "$(field mb_per_cpu_s <<<"$p")" "$disk"
  done
done
echo
echo "| codec | streaming batches (128 x tokens uint8 16x5 + label int64) | batches/s |"
echo "|---|---:|---:|"
for codec in gzip4+shuffle none; do
  s="$(pick "$cpp_out" "$codec" stream)"
  printf '| %s | %s | %s |\n' "$codec" "$(field batches <<<"$s")" "$(field batches_per_s <<<"$s")"
done
echo
mb="$(field mb <<<"$(pick "$cpp_out" none write)")"
echo "$shards shards x $per_shard samples ($mb MB uncompressed), chunks of $chunk samples, median of $reps;" \
  "warm page cache; $(nproc) cores, load average $(cut -d' ' -f1 /proc/loadavg) at the end; h5py $(/usr/bin/python3 -c 'import h5py; print(h5py.__version__)');" \
  "command: BUILD_DIR=${bench%/bin/*} bench/datasets/run.sh $shards $per_shard"
