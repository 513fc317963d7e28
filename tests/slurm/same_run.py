"""Exit 0 when two run folders hold the same results: every pe.h5 array equal, metrics.csv equal but for its wall
times, and summary.json's final metrics equal. Usage: same_run.py RUN_A RUN_B"""
import csv
import json
import sys

import h5py
import numpy


def arrays(path):
    with h5py.File(path, "r") as f:
        out = {}
        f.visititems(lambda name, obj: out.__setitem__(name, obj[()]) if isinstance(obj, h5py.Dataset) else None)
        return out


def metrics(path):
    with open(path) as f:
        return [{k: v for k, v in row.items() if k != "seconds"} for row in csv.DictReader(f)]


def main(a, b):
    pa, pb = arrays(f"{a}/pe.h5"), arrays(f"{b}/pe.h5")
    if sorted(pa) != sorted(pb):
        sys.exit(f"pe.h5 arrays differ: {sorted(pa)} vs {sorted(pb)}")
    for k in pa:
        if not numpy.array_equal(pa[k], pb[k]):
            sys.exit(f"pe.h5 {k} differs")
    if metrics(f"{a}/metrics.csv") != metrics(f"{b}/metrics.csv"):
        sys.exit("metrics.csv differs")
    fa, fb = ({split: {k: v for k, v in m.items() if k != "seconds"} for split, m in
               json.load(open(f"{r}/summary.json"))["final"].items()} for r in (a, b))
    if fa != fb:
        sys.exit(f"summary.json final differs: {fa} vs {fb}")


main(*sys.argv[1:3])
