"""A RESULTS table recomputes from its committed bundle without loci: bench/bundles/recompute_table.py on a small
bundle (tests/python/data/bundle_tiny.h5: 2 sigmas x 2 seeds of a tiny model, packed by bench/bundles/bundle_runs.py
from runs `loci analyze` had scored) gives each group's accuracy as its runs' summaries hold it, and every run's RSA
at the end and at epoch 0 as loci's own analysis computed it (--check: within 1e-6)."""
import json
import os
import subprocess
import sys

import h5py
import numpy as np

here = os.path.dirname(os.path.abspath(__file__))
root = os.path.dirname(os.path.dirname(here))
bundle = os.path.join(here, "data", "bundle_tiny.h5")
script = os.path.join(root, "bench", "bundles", "recompute_table.py")

out = subprocess.run([sys.executable, script, bundle, "--check", "--permutations", "200"], capture_output=True,
                     text=True)
assert out.returncode == 0, out.stdout + out.stderr
text = out.stdout
assert "RSA against loci's analysis.json over 4 runs" in text, text

# Each group's human accuracy, from the bundle's summaries read here by hand, is the table's.
by_sigma = {}
with h5py.File(bundle, "r") as f:
    for name in f:
        identity = json.loads(f[name].attrs["identity"])
        summary = json.loads(f[name].attrs["summary"])
        by_sigma.setdefault(identity["keys"]["model.pe.init.std"], []).append(summary["final"]["human"]["accuracy"])
assert sorted(by_sigma) == [0.2, 2.0], by_sigma
for sigma, values in by_sigma.items():
    row = next(line for line in text.splitlines() if line.startswith(f"| model.pe.init.std={sigma} |"))
    assert f"{np.mean(values):.4f}" in row, (row, values)
# The two groups share their draws (seed 0 with seed 0), so they are compared pair by pair.
assert "| paired | 2 |" in text, text
print("bundle recompute: 1 passed, 0 failed")
