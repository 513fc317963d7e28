#!/usr/bin/env bash
# Training-step speed of two builds of loci side by side (before and after a change): bench_model (float32 and
# --bf16) and bench_masked_model of each, taking turns so that both see the same quiet and busy moments. Prints a
# markdown table: each build's best ms per step and the median over turns of that turn's after / before.
#
# Usage: bench/models/compare_builds.sh BEFORE_BUILD_DIR AFTER_BUILD_DIR
#   Both need bench_model and bench_masked_model built (ninja -C DIR bench_model bench_masked_model); to build an
#   older commit: git worktree add /tmp/before COMMIT && cmake -S /tmp/before -B /tmp/before/build -G Ninja &&
#   ninja -C /tmp/before/build bench_model bench_masked_model
# Environment: THREADS (default "1,2"), STEPS per round (default 10), REPS turns (default 5). OPENBLAS_CORETYPE is
# passed through unchanged to both builds; the kernel OpenBLAS runs is printed.
set -euo pipefail
[[ $# -eq 2 ]] || { echo "usage: $0 BEFORE_BUILD_DIR AFTER_BUILD_DIR" >&2; exit 1; }
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
source "$here/../run_helpers.sh"  # root, bench_binary, model_bench_rounds
source "$here/turns.sh"           # field, lines, median_of_ratios
model_bench_rounds
for dir in "$1" "$2"; do
  bench_binary bench_model "$dir" >/dev/null || exit 1
  bench_binary bench_masked_model "$dir" >/dev/null || exit 1
done

# name|program|extra argument: the rows of the table.
benches=("paper model, float32|bench_model|" "paper model, --bf16|bench_model|--bf16"
         "masked model, float32|bench_masked_model|")
declare -A out  # "before|name" or "after|name" -> that build's RESULT lines, one per turn and thread count

"$2/bin/bench_model" --threads 1 --steps 1 --reps 1 | grep '^blas:' || true
for ((turn = 1; turn <= reps; ++turn)); do
  for entry in "${benches[@]}"; do
    IFS='|' read -r name program extra <<<"$entry"
    for side in before after; do
      dir="$1"; [[ $side == after ]] && dir="$2"
      # shellcheck disable=SC2086  # extra is zero or one word
      out["$side|$name"]+="$("$dir/bin/$program" --threads "$threads" --steps "$steps" --reps 1 $extra | grep '^RESULT')"$'\n'
    done
  done
done

echo "$reps turns, $steps steps per round; before: $1, after: $2"
echo
echo "| bench | threads | before ms/step (best) | after ms/step (best) | after / before (best) | after / before (median of turns) |"
echo "|---|---|---|---|---|---|"
fastest() { field ms_per_step "$(lines RESULT "$1" "$2")" | sort -g | head -1; }
for entry in "${benches[@]}"; do
  IFS='|' read -r name _ _ <<<"$entry"
  for t in ${threads//,/ }; do
    b="$(fastest "$t" "${out["before|$name"]}")" a="$(fastest "$t" "${out["after|$name"]}")"
    median="$(median_of_ratios "$(field ms_per_step "$(lines RESULT "$t" "${out["after|$name"]}")")" \
                               "$(field ms_per_step "$(lines RESULT "$t" "${out["before|$name"]}")")")"
    awk -v n="$name" -v t="$t" -v b="$b" -v a="$a" -v m="$median" \
      'BEGIN { printf "| %s | %s | %.2f | %.2f | %.3f | %.3f |\n", n, t, b, a, a / b, m }'
  done
done
