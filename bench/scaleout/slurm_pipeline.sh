#!/bin/bash
# A pipeline run here and the same pipeline as Slurm jobs on a single-node cluster of this machine (started and stopped
# by this script through tests/slurm/cluster.sh): the wall time of each, and whether their runs agree (same_run.py:
# every pe.h5 array, metrics.csv but for its wall times, summary.json's final metrics). Run it on a quiet machine,
# as root (the daemons run as root), from the source tree:
#   bench/scaleout/slurm_pipeline.sh [PIPELINE [WORK_DIR [KEY=VALUE ...]]]
# (default configs/paper/exp1_lst_quick.yaml and /tmp/loci-slurm-pipeline; KEY=VALUE overrides reach both runs).
# LOCI picks the loci command (default: build/bin/loci). Both runs use the pipeline's own settings: its `jobs` runs
# at a time here; on the cluster one CPU per task, so as many tasks at once as the node has CPUs.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../run_helpers.sh"
pipeline="$(realpath "${1:-$root/configs/paper/exp1_lst_quick.yaml}")"
work="${2:-/tmp/loci-slurm-pipeline}"
overrides=("${@:3}")
loci="$(realpath "${LOCI:-$root/build/bin/loci}")"
[ ! -e "$work" ] || { echo "$work exists: give another WORK_DIR or remove it" >&2; exit 1; }
mkdir -p "$work"
work="$(realpath "$work")"
source "$root/tests/slurm/cluster.sh"
trap stop_cluster EXIT

echo "loci: $loci"
"$loci" --version 2>/dev/null | head -n 1 || true
echo "cpu: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//'), $(nproc) cores," \
     "OPENBLAS_CORETYPE=${OPENBLAS_CORETYPE:-unset}"

cd "$work"
echo "== here: loci run $pipeline"
start=$(date +%s)
"$loci" run "$pipeline" out="$work/here" "${overrides[@]}" > here.log 2>&1 || { tail -n 20 here.log; exit 1; }
here_s=$(( $(date +%s) - start ))
echo "here: ${here_s} s"

echo "== as Slurm jobs: loci run $pipeline --emit slurm | sbatch"
start_cluster "$work/cluster"
start=$(date +%s)
"$loci" run "$pipeline" out="$work/array" "${overrides[@]}" --emit slurm > array.sh
sbatch --quiet array.sh
wait_idle 86400
array_s=$(( $(date +%s) - start ))
echo "array: ${array_s} s"
[ -e array/report/report.html ] || { cat array/slurm-*.out; echo "the array's report was not drawn" >&2; exit 1; }
grep -h "" array/runs/sweep.log

echo "== do the runs agree"
differ=0
for run in here/runs/*/; do
  point="$(basename "$run")"
  /usr/bin/python3 "$root/tests/slurm/same_run.py" "$run" "array/runs/$point" || differ=1
done
cmp here/data/index.json array/data/index.json || differ=1
echo "here ${here_s} s, array ${array_s} s, ratio $(ratio "$array_s" "$here_s"), runs $([ $differ = 0 ] && echo equal || echo DIFFER)"
