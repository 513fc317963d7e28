#!/usr/bin/env bash
# Runs the C++ LST generator (1 and 2 threads) and the pure-Python reference side by side in the paper's setting
# (4x4, balanced classes, givens 3..11, Jaccard > 0.8 from the 108 human puzzles) and prints a markdown table.
# Rates are per item, so the two sides run different item counts (Python would take minutes for the C++ count).
# Builds nothing: point BUILD_DIR at a build tree that has bench_lst.
#
#   BUILD_DIR=build bench/lst/run.sh [cpp_items] [python_items]
set -euo pipefail

source "$(dirname "${BASH_SOURCE[0]}")/../run_helpers.sh"  # root, bench_binary, field, ...
bench="$(bench_binary bench_lst)"
cpp_items="${1:-30000}"
py_items="${2:-600}"
seed="${SEED:-1}"
human="$root/plugins/lst_grid/data/human_puzzles.csv"

cpp_out="$("$bench" --items "$cpp_items" --seed "$seed" --human "$human" --threads 1,2)"
py_out="$(/usr/bin/python3 "$root/bench/reference/lst_reference.py" --items "$py_items" --seed "$seed" --human "$human")"

py_rate="$(field items_per_s <<<"$py_out")"

echo "| implementation | threads | items | seconds | items/s | vs Python |"
echo "|---|---:|---:|---:|---:|---:|"
while read -r line; do
  threads="$(field threads <<<"$line")"
  rate="$(field items_per_s <<<"$line")"
  printf '| C++ (loci_sim) | %s | %s | %s | %s | %sx |\n' "$threads" "$(field items <<<"$line")" \
    "$(field seconds <<<"$line")" "$rate" "$(awk -v a="$rate" -v b="$py_rate" 'BEGIN { printf "%.0f", a / b }')"
done <<<"$cpp_out"
printf '| Python 3.11 (reference) | 1 | %s | %s | %s | 1x |\n' "$(field items <<<"$py_out")" \
  "$(field seconds <<<"$py_out")" "$py_rate"
echo
echo "$(nproc) cores, $(uname -m), $(/usr/bin/python3 --version 2>&1)."
echo "Command: BUILD_DIR=${bench%/bin/*} bench/lst/run.sh $cpp_items $py_items"
