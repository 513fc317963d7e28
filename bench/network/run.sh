#!/usr/bin/env bash
# Node-steps per second of the paper's rate model (stochastic Heun, dt = tau = 0.1) on a random geometric graph of
# mean degree ~8, N = 100 and N = 300: loci's C++ (1 and 2 threads) beside the vectorised numpy reference run in
# the same invocation, as a markdown table. The yardstick is numpy batched over the same 16 runs (the state is
# nodes x 16, W @ X one matrix product: numpy's best case); numpy one run at a time is shown for context. Each
# numpy kind runs with 1 and 2 BLAS threads and the faster counts. Every configuration runs 3 times and keeps
# its best. Besides wall-clock rates it reports node-steps per CPU-second (all threads counted), which a machine
# shared with other work disturbs far less. Builds nothing: point BUILD_DIR at a build tree that has bench_network.
#
#   BUILD_DIR=build bench/network/run.sh [cpp_steps] [numpy_steps]
set -euo pipefail

source "$(dirname "${BASH_SOURCE[0]}")/../run_helpers.sh"  # root, bench_binary, field, ...
bench="$(bench_binary bench_network)"
cpp_steps="${1:-40000}"  # about 0.2 s a run: in shorter ones thread start and first-touching the output weigh more
py_steps="${2:-2000}"
runs=16
python=/usr/bin/python3
reference="$root/bench/reference/network_reference.py"

load_before="$(cut -d' ' -f1-3 /proc/loadavg)"
echo "| N | implementation | threads | M node-steps/s | vs numpy batched | M node-steps per CPU-s |" \
  "vs numpy batched, per CPU-s | vs numpy one run |"
echo "|---:|---|---:|---:|---:|---:|---:|---:|"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
for n in 100 300; do
  # The repeats take turns (every configuration once, then again), so that a change in the machine's load falls
  # on C++ and numpy alike.
  for rep in 1 2 3; do
    for threads in 1 2; do
      "$bench" --nodes "$n" --runs "$runs" --steps "$cpp_steps" --threads "$threads" >>"$tmp/cpp.$threads"
    done
    for blas in 1 2; do
      for batch in 1 $runs; do
        OMP_NUM_THREADS=$blas OPENBLAS_NUM_THREADS=$blas "$python" "$reference" --nodes "$n" --steps "$py_steps" \
          --batch "$batch" --runs "$batch" >>"$tmp/numpy.$blas.$batch"
      done
    done
  done
  declare -A wall=() cpu=()
  single=0 batched=0 batched_cpu=0
  for blas in 1 2; do
    for batch in 1 $runs; do
      line="$(best node_steps_per_s <"$tmp/numpy.$blas.$batch")"
      wall["$blas,$batch"]="$(field node_steps_per_s <<<"$line")"
      cpu["$blas,$batch"]="$(field cpu_node_steps_per_s <<<"$line")"
      if [[ "$batch" == 1 ]]; then
        single="$(max "${wall[$blas,$batch]}" "$single")"
      else
        batched="$(max "${wall[$blas,$batch]}" "$batched")"
        batched_cpu="$(max "${cpu[$blas,$batch]}" "$batched_cpu")"
      fi
    done
  done
  digests=()
  for threads in 1 2; do
    line="$(best node_steps_per_s <"$tmp/cpp.$threads")"
    w="$(field node_steps_per_s <<<"$line")"
    c="$(field cpu_node_steps_per_s <<<"$line")"
    digests+=($(field digest <"$tmp/cpp.$threads" | sort -u))
    echo "| $n | C++ loci_sim, $runs runs in lanes | $threads | $(mega "$w") | **$(ratio "$w" "$batched")** |" \
      "$(mega "$c") | $(ratio "$c" "$batched_cpu") | $(ratio "$w" "$single") |"
  done
  for batch in $runs 1; do
    for blas in 1 2; do
      w="${wall[$blas,$batch]}"
      c="${cpu[$blas,$batch]}"
      what="numpy, one run at a time"
      [[ "$batch" != 1 ]] && what="numpy, $batch runs batched"
      echo "| $n | $what | $blas (BLAS) | $(mega "$w") | $(ratio "$w" "$batched") | $(mega "$c") |" \
        "$(ratio "$c" "$batched_cpu") | $(ratio "$w" "$single") |"
    done
  done
  unset wall cpu
  rm -f "$tmp"/*
  if [[ "$(printf '%s\n' "${digests[@]}" | sort -u | wc -l)" != 1 ]]; then
    echo "error: N = $n: the repeats and thread counts gave different data (${digests[*]})" >&2
    exit 1
  fi
done

echo
echo "$(nproc) cores, $(uname -m), $("$python" --version 2>&1), numpy $("$python" -c 'import numpy; print(numpy.__version__)');" \
  "C++ $cpp_steps steps x $runs runs (same data with 1 and 2 threads), numpy $py_steps steps; best of 3, taking" \
  "turns; load average before: $load_before, after: $(cut -d' ' -f1-3 /proc/loadavg)."
echo "Command: BUILD_DIR=${bench%/bin/*} bench/network/run.sh $cpp_steps $py_steps"
