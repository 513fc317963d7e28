#!/usr/bin/env bash
# Node-steps per second of the paper's rate model (stochastic Heun, dt = tau = 0.1) on a random geometric graph of
# mean degree ~8, N = 100 and N = 300: loci's C++ (1 and 2 threads) beside the vectorised numpy reference run in
# the same invocation, as a markdown table. numpy runs one run at a time (the reference: the plain loop, vectorised
# over nodes) and also batched over 16 runs (numpy's best case), each with 1 and 2 BLAS threads; ratios are taken
# to the fastest numpy row of each kind for the same N. Every configuration runs 3 times and keeps its best, since
# the machine may be shared. Builds nothing: point BUILD_DIR at a build tree that has bench_network.
#
#   BUILD_DIR=build bench/network/run.sh [cpp_steps] [numpy_steps]
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
build="${BUILD_DIR:-$root/build}"
bench="$build/bin/bench_network"
cpp_steps="${1:-20000}"
py_steps="${2:-2000}"
runs=16
python=/usr/bin/python3
reference="$root/bench/reference/network_reference.py"

if [[ ! -x "$bench" ]]; then
  echo "no $bench: build the bench_network target first (or set BUILD_DIR)" >&2
  exit 1
fi

field() { sed -n "s/.*$1=\([^ ]*\).*/\1/p"; }
# The line with the highest node_steps_per_s among the repeats.
best() { awk '{ for (i = 1; i <= NF; ++i) if ($i ~ /^node_steps_per_s=/) { split($i, kv, "="); if (kv[2] > top) { top = kv[2]; line = $0 } } } END { print line }'; }

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { r = a / b; printf (r >= 10 ? "%.0fx" : "%.2fx"), r }'; }
mega() { awk -v r="$1" 'BEGIN { printf "%.2f", r / 1e6 }'; }

echo "| N | implementation | threads | M node-steps/s | vs numpy, one run | vs numpy, batched |"
echo "|---:|---|---:|---:|---:|---:|"
for n in 100 300; do
  # numpy: one run at a time (the reference) and 16 runs batched, each with 1 and 2 BLAS threads.
  declare -A numpy=()
  single=0
  batched=0
  for blas in 1 2; do
    for batch in 1 $runs; do
      line="$(for rep in 1 2 3; do
        OMP_NUM_THREADS=$blas OPENBLAS_NUM_THREADS=$blas "$python" "$reference" --nodes "$n" --steps "$py_steps" \
          --batch "$batch" --runs "$batch"
      done | best)"
      rate="$(field node_steps_per_s <<<"$line")"
      numpy["$blas,$batch"]="$rate"
      if [[ "$batch" == 1 ]]; then
        single="$(awk -v a="$rate" -v b="$single" 'BEGIN { print (a > b ? a : b) }')"
      else
        batched="$(awk -v a="$rate" -v b="$batched" 'BEGIN { print (a > b ? a : b) }')"
      fi
    done
  done
  digests=()
  for threads in 1 2; do
    line="$(for rep in 1 2 3; do "$bench" --nodes "$n" --runs "$runs" --steps "$cpp_steps" --threads "$threads"; done | best)"
    rate="$(field node_steps_per_s <<<"$line")"
    digests+=("$(field digest <<<"$line")")
    echo "| $n | C++ loci_sim, $runs runs in lanes | $threads | $(mega "$rate") | $(ratio "$rate" "$single") | $(ratio "$rate" "$batched") |"
  done
  for batch in 1 $runs; do
    for blas in 1 2; do
      rate="${numpy[$blas,$batch]}"
      what="numpy, one run at a time"
      [[ "$batch" != 1 ]] && what="numpy, $batch runs batched"
      echo "| $n | $what | $blas (BLAS) | $(mega "$rate") | $(ratio "$rate" "$single") | $(ratio "$rate" "$batched") |"
    done
  done
  unset numpy
  if [[ "${digests[0]}" != "${digests[1]}" ]]; then
    echo "error: N = $n: 1 and 2 threads gave different data (${digests[*]})" >&2
    exit 1
  fi
done
echo
echo "$(nproc) cores, $(uname -m), $("$python" --version 2>&1), numpy $("$python" -c 'import numpy; print(numpy.__version__)');" \
  "C++ $cpp_steps steps x $runs runs (same data with 1 and 2 threads), numpy $py_steps steps; best of 3."
echo "Command: BUILD_DIR=$build bench/network/run.sh $cpp_steps $py_steps"
