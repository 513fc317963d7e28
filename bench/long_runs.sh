#!/usr/bin/env bash
# The science issues' long pipelines, one after another, each resumable: rerun this script after an interruption and
# a finished pipeline is kept, a partial one continues from its checkpoints. Stops at the first pipeline that fails
# (a stopped sweep too), so a `loci sweep stop` on the running one ends the queue.
#   LOCI_PREFIX=/work/exp/inst RUNS=/work/exp/runs bash bench/long_runs.sh
# LOCI_PREFIX is an installed build (`cmake --install build --prefix "$LOCI_PREFIX"`), so that rebuilding the tree
# changes no run; RUNS the folder the pipelines write below. Save each finished table into bench/data with
# bench/bundles/save_table.sh (add --pool-datasets for the *_datasets pipelines) and commit it at once.
# On a new machine the install needs only the shipped targets, not the tests (about 20 min instead of 30 on 2 cores):
#   cmake --build build -j2 --target loci lst_grid network_dynamics volumetric_parcels torch_trainer image_patches
# On a new machine (a session that lost the last one's runs), restore each pipeline's committed bundle before
# starting it, so that its finished runs are kept rather than trained again:
#   loci run CONFIG out="$RUNS/NAME" --stages generate      (the very dataset: the trainer checks its checksums)
#   /usr/bin/python3 bench/bundles/restore_runs.py bench/data/NAME/runs.h5 "$RUNS/NAME/runs" --data DATA
#   loci run CONFIG out="$RUNS/NAME" --dry-run               (each restored run: "finished; kept")
# Runs longer than a session (exp1_long_4000) travel whole, weights included, instead: at a session's end
#   /usr/bin/python3 bench/bundles/carry_runs.py save "$RUNS/NAME/runs" bench/data/NAME/carry   (then commit it)
# and on the next machine, after the generate stage,
#   /usr/bin/python3 bench/bundles/carry_runs.py restore bench/data/NAME/carry "$RUNS/NAME/runs" --data DATA
# OVERRIDES are passed to every `loci run` (identity-free ones change no result): to leave one core to a run of
# Experiment 1 at 4000 epochs, OVERRIDES="train.jobs=1 train.train.threads=1".
set -u
prefix=${LOCI_PREFIX:?set LOCI_PREFIX to an installed loci}
runs=${RUNS:?set RUNS to the folder the runs go in}
# The owed ones, in the order they are worth running (the finished ones' bundles are in bench/data).
pipelines=${PIPELINES:-"exp1_table exp1_long_4000 exp1_table_loci exp2_network_datasets"}
for p in $pipelines; do
  echo "queue: $p start $(date -u +%FT%TZ)"
  # shellcheck disable=SC2086  # OVERRIDES is a list of key=value words
  "$prefix/bin/loci" run "$prefix/share/loci/configs/paper/$p.yaml" out="$runs/$p" ${OVERRIDES:-} ||
    { echo "queue: $p stopped or failed $(date -u +%FT%TZ)"; exit 1; }
  echo "queue: $p end $(date -u +%FT%TZ)"
done
