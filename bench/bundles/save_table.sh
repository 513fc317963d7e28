#!/usr/bin/env bash
# Saves a sweep's finished runs as a RESULTS table's compact artefacts, so that a lost machine loses no finding and
# anyone can recompute the table (issue 51): `loci analyze` (finished runs only; unfinished ones are named and left
# out), then bench/data/NAME/ gets the analysis tables (summary.md, summary.csv, runs.csv, comparisons.csv,
# trends.csv, correlations.csv, onsets.csv) and runs.h5, every run's identity, summary, metrics and its PE and attention terms
# at epoch 0 and at the end (bench/bundles/bundle_runs.py). Run it again as runs finish; commit bench/data/NAME.
# A later session goes on from it: bench/bundles/restore_runs.py lays the bundle out again as finished run folders.
#   bash bench/bundles/save_table.sh NAME RUNS_ROOT [LOCI [ANALYZE FLAGS...]]   (e.g. --comparisons one_setting)
set -euo pipefail
name=$1 runs=$2 loci=${3:-loci}
flags=("${@:4}")
here=$(cd "$(dirname "$0")" && pwd)
out="$here/../data/$name"
mkdir -p "$out"
"$loci" analyze -q "$runs" -o "$out" "${flags[@]}"
/usr/bin/python3 "$here/bundle_runs.py" "$runs" "$out/runs.h5" --name "$name"
pool=""
for f in "${flags[@]}"; do [[ $f == --pool-datasets ]] && pool=" --pool-datasets"; done
echo "recompute: /usr/bin/python3 bench/bundles/recompute_table.py bench/data/$name/runs.h5 --check$pool"
