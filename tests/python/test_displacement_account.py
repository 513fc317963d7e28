"""bench/displacement_account.py on the small committed bundle (tests/python/data/bundle_tiny.h5, 4 runs): it finds
every run of a drawn PE, its norm ratio and the share of the draw kept are what the bundle's PE tables give when
worked out here by hand, and two runs of the script give the same numbers (its draws are seeded)."""
import csv
import os
import subprocess
import sys
import tempfile

import h5py
import numpy as np

here = os.path.dirname(os.path.abspath(__file__))
root = os.path.dirname(os.path.dirname(here))
bundle = os.path.join(here, "data", "bundle_tiny.h5")
script = os.path.join(root, "bench", "displacement_account.py")

with tempfile.TemporaryDirectory() as a, tempfile.TemporaryDirectory() as b:
    runs = []
    for out in (a, b):
        r = subprocess.run([sys.executable, script, bundle, "--out", out, "--draws", "5"], capture_output=True,
                           text=True)
        assert r.returncode == 0, r.stdout + r.stderr
        assert "runs: 4" in r.stdout, r.stdout
        with open(os.path.join(out, "runs.csv")) as f:
            runs.append(list(csv.DictReader(f)))
        assert os.path.getsize(os.path.join(out, "displacement_account.png")) > 1000
    assert runs[0] == runs[1], "the script's draws are not seeded"
    with h5py.File(bundle, "r") as f:
        for row in runs[0]:
            g = f[row["run"]]
            blocks = sorted(k for k in g if k.startswith("placement_"))
            ratio = np.mean([np.linalg.norm(g[k][1].astype(float) - g[k][0]) / np.linalg.norm(g[k][0].astype(float))
                             for k in blocks])
            kept = np.mean([(g[k][1].astype(float) * g[k][0]).sum() / (g[k][0].astype(float) ** 2).sum()
                            for k in blocks])
            assert abs(float(row["norm_ratio"]) - ratio) < 1e-4 * max(1.0, ratio), (row, ratio)
            assert abs(float(row["kept"]) - kept) < 1e-4, (row, kept)
            assert -1 <= float(row["predicted"]) <= 1 and -1 <= float(row["predicted_kept"]) <= 1, row
print("displacement account: 1 passed, 0 failed")
