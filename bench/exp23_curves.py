"""Held-out MSE over training of an Experiment 2 or 3 sweep, mean over seeds per PE, at 90% masking (`test`) and 50%
(`test@0.5`), from each run's metrics.jsonl:
    /usr/bin/python3 bench/exp23_curves.py runs/exp3_parcels_100/runs [epoch ...]"""
import collections
import glob
import json
import os
import statistics
import sys

folder = sys.argv[1]
epochs = [int(e) for e in sys.argv[2:]] or [10, 20, 40, 60, 80, 100]
mse = collections.defaultdict(lambda: collections.defaultdict(list))
for run in sorted(glob.glob(os.path.join(folder, "*", "metrics.jsonl"))):
    name = os.path.basename(os.path.dirname(run))
    # a run's name is its sweep's key=value pairs, in whatever order the sweep gives them (a seed fixed by the
    # config comes first): the group is the PE type and init scale, whatever the order
    keys = dict(part.split("=", 1) for part in name.split(",") if "=" in part)
    std = keys.get("model.pe.init.std")
    group = keys.get("model.pe.type", name) + (f" σ {std}" if std else "")
    for line in open(run):
        row = json.loads(line)
        if row["split"] in ("test", "test@0.5"):
            mse[(row["split"], group)][row["epoch"]].append(row["mse"])
for split in ("test", "test@0.5"):
    print(f"\n{split} MSE")
    print("| PE | " + " | ".join(f"epoch {e}" for e in epochs) + " |")
    print("|---|" + "---:|" * len(epochs))
    for (s, group), by_epoch in mse.items():
        if s == split:
            cells = [f"{statistics.mean(by_epoch[e]):.3f}" if by_epoch.get(e) else "" for e in epochs]
            print(f"| {group} | " + " | ".join(cells) + " |")
