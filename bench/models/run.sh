#!/usr/bin/env bash
# Training-step throughput of the paper's model: loci's C++ model (bench_model) beside the plain PyTorch reference
# (bench/reference/paper_model.py --bench), as a markdown table.
#
# Usage: bench/models/run.sh [BUILD_DIR] [extra bench_model arguments, e.g. --bf16]
# "C++" is the trainer's step (the batch as 2 parts side by side on the threads, one thread each: train.micro_batches);
# "ops split over threads" is the plain LibTorch step, one pass with every operation split over the threads.
# "Python" runs with glibc's default malloc, "Python, tuned malloc" with the settings bench_model uses (pass
# --default-malloc to see C++ without). Both sides run in the same environment, OPENBLAS_CORETYPE included
# (bench_model prints the kernel OpenBLAS runs).
#   BUILD_DIR defaults to ./build; bench_model must be built there (cmake --build BUILD_DIR --target bench_model).
# Environment: THREADS (default "1,2"), STEPS per round (default 10), REPS turns, best kept (default 5).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
source "$here/../run_helpers.sh"  # root, bench_binary, ...
bench="$(bench_binary bench_model "${1:-}")"
shift || true
model_bench_rounds

ref=(/usr/bin/python3 "$root/bench/reference/paper_model.py" --bench --threads "$threads" --steps "$steps" --reps 1)
# The same glibc malloc tuning bench_model applies (models/allocator.hpp), through glibc's environment variables.
tuned=(env MALLOC_MMAP_THRESHOLD_=33554432 MALLOC_TRIM_THRESHOLD_=1073741824 MALLOC_TOP_PAD_=67108864)
# This VM's speed drifts by +-15% within minutes, so the four programs take turns, one round each per turn: each
# sees the same quiet and busy moments. Each keeps its best round; the ratio is also given as the median of the
# turns' own ratios.
cpp="" cpp_split_ops="" py="" py_best=""
for ((turn = 1; turn <= reps; ++turn)); do
  cpp+="$("$bench" --threads "$threads" --steps "$steps" --reps 1 "$@" | sed "s/^RESULT /RESULT turn=$turn /")"$'\n'
  cpp_split_ops+="$("$bench" --threads "$threads" --steps "$steps" --reps 1 --parts 0 "$@" | grep '^RESULT')"$'\n'
  py+="$("${ref[@]}" | sed "s/^RESULT /RESULT turn=$turn /")"$'\n'
  py_best+="$("${tuned[@]}" "${ref[@]}" | grep '^RESULT')"$'\n'
done
echo "$cpp" | grep -v '^RESULT\|^GEMM' | sort -u || true
echo "$reps turns of: C++, C++ with ops split over threads, Python, Python with tuned malloc ($steps steps per round)"
echo

source "$here/turns.sh"

echo "| threads | C++ puzzles/s | C++, ops split over threads | Python | Python, tuned malloc | C++ / Python (best / median of turns) | C++ / Python tuned | C++ GFLOP/s (executed) | fp32 GEMM GFLOP/s | % of GEMM |"
echo "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
IFS=',' read -ra list <<<"$threads"
for t in "${list[@]}"; do
  c="$(lines RESULT "$t" "$cpp")"; u="$(lines RESULT "$t" "$cpp_split_ops")"
  p="$(lines RESULT "$t" "$py")"; pb="$(lines RESULT "$t" "$py_best")"; g="$(lines GEMM "$t" "$cpp")"
  awk -v t="$t" -v c="$(best puzzles_per_s "$c")" -v u="$(best puzzles_per_s "$u")" \
      -v p="$(best puzzles_per_s "$p")" -v pb="$(best puzzles_per_s "$pb")" -v m="$(median_ratio puzzles_per_s "$t" "$cpp" "$py")" \
      -v cg="$(best gflops "$c")" -v gg="$(best fp32_gflops "$g")" \
      'BEGIN { printf "| %s | %.0f | %.0f | %.0f | %.0f | %.2fx / %.2fx | %.2fx | %.1f | %.1f | %.0f%% |\n",
               t, c, u, p, pb, c / p, m, c / pb, cg, gg, 100 * cg / gg }'
done
echo
echo "load average while measuring: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) cores"
