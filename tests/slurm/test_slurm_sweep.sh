#!/usr/bin/env bash
# A sweep as a Slurm job array on a single-node cluster this test starts and stops (cluster.sh): the array's runs
# equal the same sweep run here; submitted again it keeps every finished run; a task cancelled mid-run, or warned of
# its time limit (SIGUSR1, what --signal sends), resumes; a failed point says so in one line; `loci sweep status`
# tells each point's state; and `srun --ntasks 2` trains data-parallel with no hand-written exports.
# Usage: test_slurm_sweep.sh LOCI SOURCE_DIR WORK_DIR
set -euo pipefail
loci="$1" src="$2" work="$3"
here="$(cd "$(dirname "$0")" && pwd)"
rm -rf "$work"
mkdir -p "$work"
# shellcheck source=cluster.sh
source "$here/cluster.sh"
trap stop_cluster EXIT
start_cluster "$work/cluster"
cd "$work"

fail() {
  echo "FAIL: $*" >&2
  exit 1
}
same_run() { /usr/bin/python3 "$here/same_run.py" "$1" "$2" || fail "$1 and $2 differ"; }
# The job id of a submission, the script on standard input.
submit() { sbatch --parsable "$@" | cut -d';' -f1; }
wait_for_file() {
  for _ in $(seq 1 600); do [ -e "$1" ] && return 0; sleep 0.1; done
  fail "$1 never appeared"
}

cat > data.yaml <<YAML
include: $src/configs/lst.yaml
out: data
splits: {train: 96, test: 24}
samples_per_shard: 64
YAML
"$loci" generate -q data.yaml
cat > train.yaml <<YAML
trainer: torch_trainer
data: data
out: local
model: {d_model: 16, blocks: 2, pe: {type: learned, init: {std: 0.2}}}
train: {epochs: 4, eval_every: 2, batch_size: 32, threads: 1, lr: 0.001}
YAML

echo "== a job array equals the same sweep run here"
"$loci" train train.yaml -m seed=0,1 > local.log 2>&1 || { cat local.log; fail "the local sweep failed"; }
"$loci" train train.yaml -m seed=0,1 out=array --emit slurm --sbatch cpus-per-task=1 --sbatch time=10 > array.sh
grep -q '^#SBATCH --cpus-per-task=1$' array.sh || fail "--sbatch cpus-per-task=1 is not an #SBATCH line"
grep -q '^#SBATCH --time=10$' array.sh || fail "--sbatch time=10 is not an #SBATCH line"
sbatch --wait --quiet array.sh || { cat array/slurm-*.out; fail "the array failed"; }
for point in seed=0 seed=1; do same_run "local/$point" "array/$point"; done
[ "$(grep -c ' done seed=' array/sweep.log)" = 2 ] || { cat array/sweep.log; fail "sweep.log lacks a line per point"; }

echo "== submitted again, it keeps every finished run"
before="$(stat -c %Y array/seed=0/summary.json array/seed=1/summary.json; md5sum array/seed=*/pe.h5)"
"$loci" train train.yaml -m seed=0,1 out=array --emit slurm | sbatch --wait --quiet
[ "$before" = "$(stat -c %Y array/seed=0/summary.json array/seed=1/summary.json; md5sum array/seed=*/pe.h5)" ] ||
  fail "a resubmitted array rewrote a finished run"
grep -q 'has finished already' array/seed=0/train.log || fail "the kept run does not say so"
"$loci" sweep status array > status.txt
grep -q '2 points: 2 done' status.txt || { cat status.txt; fail "sweep status: $(head -1 status.txt)"; }

echo "== a cancelled task resumes when submitted again; a time-limit warning checkpoints and requeues"
"$loci" train train.yaml -m seed=0,1 out=long train.epochs=400 train.eval_every=5 --emit slurm > long.sh
job="$(submit long.sh)"
wait_for_file long/seed=0/checkpoints/last.pt
wait_for_file long/seed=1/checkpoints/last.pt
scancel "${job}_0"
scancel --signal=USR1 --batch "${job}_1"
for _ in $(seq 1 600); do grep -q 'stopped seed=0' long/sweep.log 2>/dev/null && break; sleep 0.1; done
grep -q 'stopped seed=0' long/sweep.log || { cat long/sweep.log long/slurm-*; fail "the cancelled task left no line"; }
"$loci" sweep status long > status.txt || true
grep -Eq '^  interrupted +seed=0' status.txt || { cat status.txt; fail "a cancelled point is not interrupted"; }
# Slurm holds a requeued task back a while before it may start again; the test lets it start now.
for _ in $(seq 1 600); do
  if [ "$(squeue -h -j "${job}_1" -o %T 2>/dev/null)" = PENDING ]; then
    scontrol update JobId="${job}_1" StartTime=now 2>/dev/null || true
    break
  fi
  sleep 0.1
done
wait_idle 600 || fail "the warned task did not finish after its requeue"
grep -q 'requeued seed=1' long/sweep.log || { cat long/sweep.log; fail "the warned task did not requeue itself"; }
grep -q 'paused at epoch' long/seed=1/train.log || fail "the warned run did not pause at an epoch's end"
grep -q '"status": "finished"' long/seed=1/summary.json || fail "the requeued run did not finish"
sbatch --wait --quiet --array=0 long.sh
grep -q '"status": "finished"' long/seed=0/summary.json || fail "the resubmitted run did not finish"
"$loci" train train.yaml out=long_here train.epochs=400 train.eval_every=5 -m seed=0,1 > long_here.log 2>&1
for point in seed=0 seed=1; do same_run "long_here/$point" "long/$point"; done

echo "== a failed point says so in one line, in sweep.log and in sweep status"
"$loci" train train.yaml -m 'train.lr=0.001,1e30' out=failing --emit slurm > failing.sh
sbatch --wait --quiet failing.sh && fail "an array with a failed point exited 0"
grep -q 'FAILED train.lr=1e30: loci: error:' failing/sweep.log || { cat failing/sweep.log; fail "no FAILED line"; }
"$loci" sweep status failing > status.txt
grep -Eq '^  failed +train.lr=1e30 +loci: error:' status.txt || { cat status.txt; fail "sweep status: no failed point"; }
grep -Eq '^  done +train.lr=0.001' status.txt || { cat status.txt; fail "sweep status: no done point"; }

echo "== a pipeline as Slurm jobs: generation, the train stage as an array, analysis and report after it"
small=(generate.splits.train=96 generate.splits.test=24 generate.samples_per_shard=64 train.model.d_model=16
       train.model.blocks=1 train.train.epochs=2 train.train.eval_every=2 'train.train.robustness_noise=[]')
"$loci" run "$src/configs/quickstart.yaml" out=pipe_here "${small[@]}" > pipe_here.log 2>&1 ||
  { cat pipe_here.log; fail "the local pipeline failed"; }
"$loci" run "$src/configs/quickstart.yaml" out=pipe "${small[@]}" --emit slurm --sbatch time=10 > pipe.sh
grep -q '^#SBATCH --time=10$' pipe.sh || fail "--sbatch time=10 is not an #SBATCH line of the pipeline job"
sbatch --quiet pipe.sh
wait_idle 600 || fail "the pipeline's jobs did not end"
[ -e pipe/report/report.html ] || { cat pipe/slurm-*.out; fail "the pipeline's report was not drawn"; }
for point in model.pe.init.std=0.2 model.pe.init.std=2.0; do same_run "pipe_here/runs/$point" "pipe/runs/$point"; done
cmp pipe_here/data/index.json pipe/data/index.json > /dev/null || fail "the pipeline's data differ from the local run's"
"$loci" sweep status pipe/runs | grep -q '2 points: 2 done' || fail "sweep status of the pipeline's runs"

echo "== srun --ntasks 2 trains data-parallel, matching one process"
"$loci" train -q train.yaml out=one train.epochs=4 train.eval_every=1
srun --ntasks 2 --cpus-per-task 1 "$loci" train -q train.yaml out=two train.epochs=4 train.eval_every=1
/usr/bin/python3 - <<PY || fail "two srun ranks do not give one process's losses"
import csv
a = [float(r["loss"]) for r in csv.DictReader(open("one/metrics.csv"))]
b = [float(r["loss"]) for r in csv.DictReader(open("two/metrics.csv"))]
assert len(a) == len(b) > 0, (a, b)
assert all(abs(x - y) <= 1e-4 * abs(x) + 1e-6 for x, y in zip(a, b)), (a, b)
PY
echo "slurm sweep: all checks passed"
