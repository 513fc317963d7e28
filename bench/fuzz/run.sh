#!/usr/bin/env bash
# The libFuzzer harnesses run long, each from the seeds (bench/fuzz/make_seeds.sh) into a corpus kept between runs:
#   bench/fuzz/run.sh build [SECONDS_EACH] [HARNESS...]     (default 3600 s each, all eight)
# Build first (cmake --build build: the fuzzers are built when clang and libFuzzer are installed). A finding is
# left as crash-*/timeout-*/oom-* in bench/fuzz/work/<harness>/ and stops that harness; the stats line says how
# many inputs ran (stat::number_of_executed_units). LOCI_FUZZ_LONE_SHARD=1 makes fuzz_shard open lone shards (no
# index, no checksum), which puts the HDF5 library itself under test.
set -euo pipefail
build=${1:?usage: run.sh BUILD_DIR [SECONDS_EACH] [HARNESS...]}
seconds=${2:-3600}
shift $(( $# > 1 ? 2 : 1 ))
harnesses=("$@")
[ ${#harnesses[@]} -gt 0 ] || harnesses=(config shard index tables layout nifti emit run_folder)
here=$(cd "$(dirname "$0")" && pwd)
build=$(cd "$build" && pwd)
seeds=$here/work/seeds
[ -d "$seeds" ] || bash "$here/make_seeds.sh" "$build/bin/loci" "$seeds"
for h in "${harnesses[@]}"; do
  work=$here/work/$h
  mkdir -p "$work/corpus"
  echo "== fuzz_$h for $seconds s ($(date -u +%FT%TZ))"
  (cd "$work" && LOCI_FUZZ_DATASET=$seeds/data/lst ASAN_OPTIONS=detect_leaks=1 "$build/fuzz/fuzz_$h" \
     -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -malloc_limit_mb=1024 -print_final_stats=1 \
     corpus "$seeds/$h" 2>&1 | grep -E "^stat::|==[0-9]+==ERROR|SUMMARY|Test unit written" || true)
done
