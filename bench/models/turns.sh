# Helpers of the model benches that take turns (run.sh, run_masked.sh), sourced: the values on their RESULT/GEMM
# lines, the best of the turns, and the median over turns of one side's rate over the other's.

# field NAME TEXT: the values of NAME=... on the lines of TEXT, one per line.
field() { sed -n "s/.*[[:space:]]$1=\([^[:space:]]*\).*/\1/p" <<<"$2"; }
# lines KIND THREADS TEXT: the KIND (RESULT, GEMM) lines of TEXT at that thread count.
lines() { grep "^$1 .*threads=$2 " <<<"$3"; }
# best NAME TEXT: the highest value of NAME=.
best() { field "$1" "$2" | sort -g | tail -1; }
# median_ratio NAME THREADS A B: the median over turns of A's NAME / B's NAME at that thread count (A and B hold one
# RESULT line per turn, in turn order).
median_ratio() {
  median_of_ratios "$(field "$1" "$(lines RESULT "$2" "$3")")" "$(field "$1" "$(lines RESULT "$2" "$4")")"
}
# median_of_ratios A B: A and B hold one value per turn (whitespace-separated, in turn order); the median over turns
# of A / B. Each turn's ratio sees both sides at that moment's machine speed.
median_of_ratios() {
  paste <(tr -s ' \n' '\n' <<<"$1" | sed '/^$/d') <(tr -s ' \n' '\n' <<<"$2" | sed '/^$/d') |
    awk '{ print $1 / $2 }' | sort -g |
    awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}
