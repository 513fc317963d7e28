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
# Environment: THREADS (default "1,2"), STEPS per round (default 10), REPS rounds, best kept (default 5).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
build="${1:-$root/build}"
shift || true
threads="${THREADS:-1,2}"
steps="${STEPS:-10}"
reps="${REPS:-5}"
bench="$build/bin/bench_model"
[[ -x "$bench" ]] || { echo "no $bench: build the bench_model target first" >&2; exit 1; }

cpp="$("$bench" --threads "$threads" --steps "$steps" --reps "$reps" "$@")"
cpp_split_ops="$("$bench" --threads "$threads" --steps "$steps" --reps "$reps" --parts 0 "$@")"
ref=(/usr/bin/python3 "$root/bench/reference/paper_model.py" --bench --threads "$threads" --steps "$steps" --reps "$reps")
py="$("${ref[@]}")"
# The same glibc malloc tuning bench_model applies (models/allocator.hpp), through glibc's environment variables.
py_best="$(MALLOC_MMAP_THRESHOLD_=33554432 \
  MALLOC_TRIM_THRESHOLD_=1073741824 MALLOC_TOP_PAD_=67108864 "${ref[@]}")"
echo "$cpp" | grep -v '^RESULT\|^GEMM' || true
echo

# field NAME LINE: the value of NAME=... in a RESULT/GEMM line.
field() { sed -n "s/.*[[:space:]]$1=\([^[:space:]]*\).*/\1/p" <<<"$2"; }
line() { grep "^$1 .*threads=$2 " <<<"$3" | head -1; }

echo "| threads | C++ puzzles/s | C++, ops split over threads | Python | Python, tuned malloc | C++ / Python | C++ / Python tuned | C++ GFLOP/s (executed) | fp32 GEMM GFLOP/s | % of GEMM |"
echo "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
IFS=',' read -ra list <<<"$threads"
for t in "${list[@]}"; do
  c="$(line RESULT "$t" "$cpp")"; u="$(line RESULT "$t" "$cpp_split_ops")"
  p="$(line RESULT "$t" "$py")"; pb="$(line RESULT "$t" "$py_best")"; g="$(line GEMM "$t" "$cpp")"
  awk -v t="$t" -v c="$(field puzzles_per_s "$c")" -v u="$(field puzzles_per_s "$u")" \
      -v p="$(field puzzles_per_s "$p")" -v pb="$(field puzzles_per_s "$pb")" \
      -v cg="$(field gflops "$c")" -v gg="$(field fp32_gflops "$g")" \
      'BEGIN { printf "| %s | %.0f | %.0f | %.0f | %.0f | %.2fx | %.2fx | %.1f | %.1f | %.0f%% |\n",
               t, c, u, p, pb, c / p, c / pb, cg, gg, 100 * cg / gg }'
done
echo
echo "load average while measuring: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) cores"
