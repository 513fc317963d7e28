#!/usr/bin/env bash
# Training-step speed of two builds of loci side by side (before and after a change): bench_model (float32 and
# --bf16) and bench_masked_model of each, taking turns so that both see the same quiet and busy moments. Prints a
# markdown table: each build's best ms per step and the median over turns of that turn's after / before.
#
# Usage: bench/models/compare_builds.sh BEFORE_BUILD_DIR AFTER_BUILD_DIR
#   Both need bench_model and bench_masked_model built (ninja -C DIR bench_model bench_masked_model); to build an
#   older commit: git worktree add /tmp/before COMMIT && cmake -S /tmp/before -B /tmp/before/build -G Ninja &&
#   ninja -C /tmp/before/build bench_model bench_masked_model
# Environment: THREADS (default "1,2"), STEPS per round (default 20), REPS turns (default 7). OPENBLAS_CORETYPE is
# passed through unchanged to both builds; the kernel OpenBLAS runs is printed.
set -euo pipefail
[[ $# -eq 2 ]] || { echo "usage: $0 BEFORE_BUILD_DIR AFTER_BUILD_DIR" >&2; exit 1; }
before="$1" after="$2"
for dir in "$before" "$after"; do
  for bin in bench_model bench_masked_model; do
    [[ -x "$dir/bin/$bin" ]] || { echo "$0: $dir/bin/$bin is not built" >&2; exit 1; }
  done
done
threads="${THREADS:-1,2}" steps="${STEPS:-20}" reps="${REPS:-7}"

# name|program|arguments: the rows of the table.
benches=("paper model, float32|bench_model|" "paper model, --bf16|bench_model|--bf16"
         "masked model, float32|bench_masked_model|")
declare -A results  # "build|bench|threads" -> one ms_per_step per turn, space-separated

one_round() {  # build_dir program extra_args -> "threads ms" lines
  local dir="$1" program="$2" extra="$3"
  # shellcheck disable=SC2086  # extra is zero or one word
  "$dir/bin/$program" --threads "$threads" --steps "$steps" --reps 1 $extra |
    sed -n 's/^RESULT .*threads=\([0-9]*\) \(.* \)\?ms_per_step=\([0-9.]*\).*/\1 \3/p'
}

"$after/bin/bench_model" --threads 1 --steps 1 --reps 1 | grep '^blas:' || true
for ((turn = 1; turn <= reps; ++turn)); do
  for entry in "${benches[@]}"; do
    IFS='|' read -r name program extra <<<"$entry"
    for side in before after; do
      dir="$before"; [[ $side == after ]] && dir="$after"
      while read -r t ms; do results["$side|$name|$t"]+="$ms "; done < <(one_round "$dir" "$program" "$extra")
    done
  done
done

echo "$reps turns, $steps steps per round; before: $before, after: $after"
echo
echo "| bench | threads | before ms/step (best) | after ms/step (best) | after / before (best) | after / before (median of turns) |"
echo "|---|---|---|---|---|---|"
for entry in "${benches[@]}"; do
  IFS='|' read -r name program extra <<<"$entry"
  for t in ${threads//,/ }; do
    python3 - "$name" "$t" "${results["before|$name|$t"]:-}" "${results["after|$name|$t"]:-}" <<'EOF'
import statistics, sys
name, t, b, a = sys.argv[1], sys.argv[2], [float(x) for x in sys.argv[3].split()], [float(x) for x in sys.argv[4].split()]
if not b or not a:
    sys.exit(f"compare_builds.sh: no RESULT line for {name} on {t} threads from the {'before' if not b else 'after'} build")
ratios = [y / x for x, y in zip(b, a)]
print(f"| {name} | {t} | {min(b):.2f} | {min(a):.2f} | {min(a) / min(b):.3f} | {statistics.median(ratios):.3f} |")
EOF
  done
done
