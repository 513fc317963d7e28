"""A RESULTS table recomputes from its committed bundle without loci: bench/bundles/recompute_table.py on a small
bundle (tests/python/data/bundle_tiny.h5: 2 sigmas x 2 seeds of a tiny model, packed by bench/bundles/bundle_runs.py
from runs `loci analyze` had scored) gives each group's accuracy as its runs' summaries hold it, and every run's RSA
at the end and at epoch 0 as loci's own analysis computed it (--check: within 1e-6). With --pool-datasets, runs on
two datasets (the tiny bundle again, its copy relabelled as a second dataset with other accuracies) form one group per
sigma over both, and comparisons pair runs by dataset and draw, not by draw alone. With a third sigma (the runs copied
as sigma 1, accuracies set to fall with sigma within each draw) the trend along sigma is tested within the shared
draws and its rho is -1."""
import json
import os
import shutil
import subprocess
import sys
import tempfile

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

# Pooled over datasets: a second dataset (another shards checksum) whose runs share the first one's seeds and draws.
with tempfile.TemporaryDirectory() as tmp:
    pooled = os.path.join(tmp, "pooled.h5")
    shutil.copy(bundle, pooled)
    expected = {}
    with h5py.File(pooled, "a") as f:
        for name in list(f):
            copy = name + ",data=second"
            f.copy(f[name], copy)
            identity = json.loads(f[copy].attrs["identity"])
            identity["keys"]["data.shards_sha256"] = "0" * 64
            f[copy].attrs["identity"] = json.dumps(identity)
            summary = json.loads(f[copy].attrs["summary"])
            summary["final"]["human"]["accuracy"] = summary["final"]["human"]["accuracy"] * 0.5
            f[copy].attrs["summary"] = json.dumps(summary)
            for g in (name, copy):
                sigma = json.loads(f[g].attrs["identity"])["keys"]["model.pe.init.std"]
                expected.setdefault(sigma, []).append(json.loads(f[g].attrs["summary"])["final"]["human"]["accuracy"])
    split = subprocess.run([sys.executable, script, pooled, "--permutations", "50"], capture_output=True, text=True)
    assert split.returncode == 0, split.stdout + split.stderr
    assert "8 runs in 4 groups" in split.stdout, split.stdout
    out = subprocess.run([sys.executable, script, pooled, "--pool-datasets", "--permutations", "50"],
                         capture_output=True, text=True)
    assert out.returncode == 0, out.stdout + out.stderr
    text = out.stdout
    assert "8 runs in 2 groups, pooled over 2 datasets" in text, text
    for sigma, values in expected.items():
        assert len(values) == 4, expected
        row = next(line for line in text.splitlines() if line.startswith(f"| model.pe.init.std={sigma} | 4 |"))
        assert f"{np.mean(values):.4f}" in row, (row, values)
    # Paired by (dataset, draw): 4 pairs. Pairing by draw alone would find 2 keys for 4 runs and fall back.
    assert "| paired | 4 |" in text, text

# A third sigma: each seed's draw is shared by its three runs, whose accuracy falls with sigma.
with tempfile.TemporaryDirectory() as tmp:
    three = os.path.join(tmp, "three.h5")
    shutil.copy(bundle, three)
    with h5py.File(three, "a") as f:
        for name in list(f):
            if json.loads(f[name].attrs["identity"])["keys"]["model.pe.init.std"] != 0.2:
                continue
            copy = name + ",sigma=1"
            f.copy(f[name], copy)
            identity = json.loads(f[copy].attrs["identity"])
            identity["keys"]["model.pe.init.std"] = 1.0
            f[copy].attrs["identity"] = json.dumps(identity)
        for name in f:
            sigma = json.loads(f[name].attrs["identity"])["keys"]["model.pe.init.std"]
            summary = json.loads(f[name].attrs["summary"])
            summary["final"]["human"]["accuracy"] = 0.9 - 0.1 * sigma
            f[name].attrs["summary"] = json.dumps(summary)
    out = subprocess.run([sys.executable, script, three, "--permutations", "50"], capture_output=True, text=True)
    assert out.returncode == 0, out.stdout + out.stderr
    row = next(line for line in out.stdout.splitlines() if line.startswith("| all runs | human_accuracy |"))
    assert "| 6 | -1.000 | within shared draws |" in row, row

# --check holds the RSA within 1e-6, except for a PE whose distances tie exactly (a fixed sinusoid of a grid, whose
# distances depend on the offset alone): rounding then decides ranks, so it is held within 5e-3, and only that PE.
sys.path.insert(0, os.path.dirname(script))
import recompute_table  # noqa: E402

grid = np.array([(r, c) for r in range(4) for c in range(4)], dtype=np.float64)
sinusoid = np.concatenate([np.sin(grid[:, :1] * np.array([[1.0, 0.5]])), np.sin(grid[:, 1:] * np.array([[1.0, 0.5]]))],
                          axis=1)
assert recompute_table.rounded_ties(sinusoid + np.random.default_rng(0).normal(0, 1e-13, sinusoid.shape))
assert not recompute_table.rounded_ties(np.random.default_rng(1).normal(size=(16, 8)))
run = {"rsa": 0.5, "init_rsa": 0.5, "loci": {"rsa_spearman": 0.5002, "init_rsa_spearman": 0.5}}
assert not recompute_table.check_against_loci([dict(run, rounded_ties=False)])[1]
assert recompute_table.check_against_loci([dict(run, rounded_ties=True)])[1]
assert not recompute_table.check_against_loci([dict(run, rounded_ties=True, rsa=0.51)])[1]

# A PE whose tables are not [token, dim] (a relative PE keeps its attention table, [evaluation, head, token, offset])
# has no RSA, as in loci's analysis: the table still recomputes, with that run's accuracies and no RSA of its own.
with tempfile.TemporaryDirectory() as tmp:
    mixed = os.path.join(tmp, "mixed.h5")
    shutil.copy(bundle, mixed)
    with h5py.File(mixed, "a") as f:
        name = sorted(f)[0]
        relative = name + ",relative"
        f.copy(f[name], relative)
        identity = json.loads(f[relative].attrs["identity"])
        identity["keys"]["model.pe.type"] = "relative"
        f[relative].attrs["identity"] = json.dumps(identity)
        tokens = f[relative]["positions"].shape[0]
        for key in [k for k in f[relative] if k.startswith("placement_")]:
            del f[relative][key]
            f[relative][key] = np.zeros((2, 1, tokens, 2 * tokens - 1), dtype=np.float32)
    out = subprocess.run([sys.executable, script, mixed, "--check", "--permutations", "50"], capture_output=True,
                         text=True)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "model.pe.type=relative" in out.stdout, out.stdout

print("bundle recompute: 5 passed, 0 failed")
