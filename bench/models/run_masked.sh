#!/usr/bin/env bash
# Training-step throughput of the masked-regression model of Experiments 2 and 3: loci's C++ model
# (bench_masked_model, the trainer's step with one micro-batch per thread) beside the plain PyTorch reference
# (bench/reference/masked_model.py --bench) in the same run, as a markdown table.
#
# Usage: bench/models/run_masked.sh [BUILD_DIR] [extra bench_masked_model arguments]
# Both sides run in the same environment, OPENBLAS_CORETYPE included: set it to compare on one kernel (loci's own
# `loci train` chooses it by itself; these programs do not), e.g.
#   OPENBLAS_CORETYPE=Cooperlake bench/models/run_masked.sh build
# Environment: THREADS (default "1,2"), STEPS per round (default 10), REPS turns (default 5). The two programs take
# turns, one round each per turn, so that both see the same quiet and busy moments; each keeps its best round, and
# the ratio is also given as the median over turns of that turn's C++ / Python.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
source "$here/../run_helpers.sh"  # root, bench_binary, ...
bench="$(bench_binary bench_masked_model "${1:-}")"
shift || true
model_bench_rounds
ref=(/usr/bin/python3 "$root/bench/reference/masked_model.py" --bench --threads "$threads" --steps "$steps" --reps 1)

cpp="" py=""
for ((turn = 1; turn <= reps; ++turn)); do
  out="$("$bench" --threads "$threads" --steps "$steps" --reps 1 "$@")"
  [[ $turn -gt 1 ]] || grep -v '^RESULT' <<<"$out"
  cpp+="$(grep '^RESULT' <<<"$out")"$'\n'
  py+="$("${ref[@]}" | grep '^RESULT')"$'\n'
done
echo "$reps turns of C++ and Python, $steps steps per round; OPENBLAS_CORETYPE ${OPENBLAS_CORETYPE:-not set}"
echo

source "$here/turns.sh"

echo "| threads | C++ samples/s | Python samples/s | C++ / Python (best / median of turns) | C++ GFLOP/s |"
echo "|---:|---:|---:|---:|---:|"
IFS=',' read -ra list <<<"$threads"
for t in "${list[@]}"; do
  c="$(lines RESULT "$t" "$cpp")"; p="$(lines RESULT "$t" "$py")"
  awk -v t="$t" -v c="$(best samples_per_s "$c")" -v p="$(best samples_per_s "$p")" -v m="$(median_ratio samples_per_s "$t" "$cpp" "$py")" \
      -v g="$(best gflops "$c")" \
      'BEGIN { printf "| %s | %.0f | %.0f | %.2fx / %.2fx | %.1f |\n", t, c, p, c / p, m, g }'
done
echo
echo "load average while measuring: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) cores"
