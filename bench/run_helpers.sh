# Shell helpers the bench scripts share (sourced, not run): the source tree's root and the bench executables in a
# build tree, reading `key=value` fields off a bench's output lines and formatting rates and ratios for the markdown
# tables.

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"

# The value of `key=` on the line(s) read from stdin (the key preceded by a space).
field() { sed -n "s/.*[ ]$1=\([^ ]*\).*/\1/p"; }

# Of the repeats on stdin, the line with the highest wall-clock rate `<key>`, carrying the highest CPU rate
# `cpu_<key>` among all repeats (on a shared machine the least disturbed round of each).
best() {
  awk -v key="$1" '{ for (i = 1; i <= NF; ++i) { split($i, kv, "=");
           if (kv[1] == key && kv[2] + 0 > wall) { wall = kv[2] + 0; line = $0 }
           if (kv[1] == "cpu_" key && kv[2] + 0 > cpu) cpu = kv[2] + 0 } }
       END { sub(" cpu_" key "=[^ ]*", "", line); print line " cpu_" key "=" cpu }'
}

max() { awk -v a="$1" -v b="$2" 'BEGIN { print (a + 0 > b + 0 ? a : b) }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { r = a / b; printf (r >= 10 ? "%.0fx" : "%.2fx"), r }'; }
# A rate in millions, with $2 decimals (default 2).
mega() { awk -v r="$1" -v d="${2:-2}" 'BEGIN { printf "%.*f", d, r / 1e6 }'; }

# The path of the bench executable $1 in the build tree $2 (default $BUILD_DIR, else build/ under $root); fails with
# what to do when it is not built (`bench="$(bench_binary bench_lst)"` then stops a `set -e` script).
bench_binary() {
  local path="${2:-${BUILD_DIR:-$root/build}}/bin/$1"
  if [[ ! -x "$path" ]]; then
    echo "no $path: build the $1 target first (or set BUILD_DIR)" >&2
    return 1
  fi
  echo "$path"
}

# The model benches' rounds, from the environment: THREADS (default "1,2"), STEPS per round (default 10), REPS turns
# (default 5). Sets threads, steps and reps.
model_bench_rounds() {
  threads="${THREADS:-1,2}"
  steps="${STEPS:-10}"
  reps="${REPS:-5}"
}
