"""bench/interventions_table.py on a bundle whose interventions are known: each cell's change per intervention is
the mean over its runs (in points for accuracy), the symmetry-minus-matched number of a run is its symmetries'
changes less their matched relabellings' means, and its exact sign-flip p is the one counted by hand; a change that
follows sigma over a family's runs gets scipy's Spearman rho and a small permutation p."""
import itertools
import json
import os
import subprocess
import sys
import tempfile

import h5py
import numpy as np

here = os.path.dirname(os.path.abspath(__file__))
script = os.path.join(os.path.dirname(os.path.dirname(here)), "bench", "interventions_table.py")


def interventions(zero, sym, matched):
    rows = [{"intervention": "zero", "variant": "zero", "scope": "all", "split": "human", "value": 0, "change": zero},
            {"intervention": "zero", "variant": "zero", "scope": "block0", "split": "human", "value": 0,
             "change": zero / 2},
            {"intervention": "zero", "variant": "zero", "scope": "block1", "split": "human", "value": 0, "change": -0.01}]
    for name, change in sym.items():
        rows.append({"intervention": "permute_symmetry", "variant": f"permute_symmetry:{name}", "scope": "all",
                     "split": "human", "value": 0, "change": change})
    for name, changes in matched.items():
        for k, change in enumerate(changes):
            rows.append({"intervention": "permute_matched", "variant": f"permute_matched:{name}#{k}", "scope": "all",
                         "split": "human", "value": 0, "change": change})
    return {"loci_interventions": 1, "metric": "accuracy", "baseline": {"human": 0.9, "test": 0.95}, "results": rows,
            "per_position": {"intervention": "zero_row", "split": "test", "change": [-0.1, zero / 2, -0.02]}}


with tempfile.TemporaryDirectory() as tmp:
    bundle = os.path.join(tmp, "b.h5")
    # Four runs of one cell: symmetry - matched = (+0.1, +0.2, +0.3, -0.1) in accuracy.
    runs = [(-0.5, {"(y,x)": -0.1, "(-x,y)": -0.3}, {"(y,x)": [-0.2, -0.2], "(-x,y)": [-0.4, -0.4]}),
            (-0.4, {"(y,x)": 0.0}, {"(y,x)": [-0.3, -0.1]}),
            (-0.6, {"(y,x)": 0.1}, {"(y,x)": [-0.2]}),
            (-0.3, {"(y,x)": -0.2}, {"(y,x)": [-0.1]})]
    # Two more runs at each of sigma 0.5 and 1 (no symmetries), whose zeroed PE costs less the larger the sigma.
    sigmas = [0.2] * 4 + [0.5, 0.5, 1.0, 1.0]
    runs += [(-0.2, {}, {}), (-0.25, {}, {}), (-0.1, {}, {}), (-0.05, {}, {})]
    with h5py.File(bundle, "w") as f:
        f.attrs["name"] = "tiny"
        for i, (zero, sym, matched) in enumerate(runs):
            g = f.create_group(f"seed={i}")
            g.attrs["identity"] = json.dumps({"keys": {"model.pe.type": "learned", "model.pe.init.std": sigmas[i],
                                                       "train.lr": 1e-4, "seed": i}})
            g.attrs["interventions"] = json.dumps(interventions(zero, sym, matched))
    out = subprocess.run([sys.executable, script, bundle, "--out", tmp], capture_output=True, text=True)
    assert out.returncode == 0, out.stdout + out.stderr
    text = out.stdout
    # zero: mean of -50, -40, -60, -30 points (the block-0 row is not the whole model's).
    row = next(line for line in text.splitlines() if line.startswith("| tiny learned sigma 0.2"))
    assert "| 4 | 90.0 |" in row, row
    assert "-45.0 [" in row, row
    # symmetry - matched: mean +0.125, shown as +12.50 points, with the exact p counted here over all 16 signs.
    line = next(line for line in text.splitlines() if line.startswith("| tiny learned sigma 0.2") and "| +12.50 [" in line)
    # Their own means, each run first averaged over its symmetries: (-20 + 0 + 10 - 20) / 4 and (-30 - 20 - 20 - 10) / 4.
    assert "| 4 | -7.50 | -20.00 | +12.50 [" in line, line
    d = [0.1, 0.2, 0.3, -0.1]
    expected = np.mean([abs(np.mean(np.array(d) * np.array(s))) >= abs(np.mean(d)) - 1e-12
                        for s in itertools.product((1, -1), repeat=4)])
    assert f"| {expected:.3g} |" in line, (line, expected)
    # Leaving the transpose out leaves one run with a symmetry: too few to test.
    left = subprocess.run([sys.executable, script, bundle, "--exclude-symmetry", "(y,x)"], capture_output=True, text=True)
    assert left.returncode == 0, left.stdout + left.stderr
    assert "+12.50" not in left.stdout, left.stdout
    # Per block: block 0's zero is half the whole model's (-22.5 points), block 1's -1 point in every run.
    row = next(line for line in text.splitlines() if line.startswith("| tiny learned sigma 0.2") and "| 4 | zero |" in line)
    assert "block 0: -22.5 [" in row and "block 1: -1.0 [-1.0, -1.0]" in row, row
    # Per token: token 1 costs most (-22.5 points on average), the other two -6.0 on average.
    row = next(line for line in text.splitlines() if line.startswith("| tiny learned sigma 0.2") and "| test | 4 | 1 |" in line)
    assert "| -22.5 [" in row and "| -6.0 [-6.0, -6.0] |" in row, row
    # The trend of the zeroed PE's cost with sigma over the family's 8 runs: scipy's rho, and a p far below 0.05.
    from scipy import stats
    rho = stats.spearmanr(sigmas, [z for z, _, _ in runs])[0]
    row = next(line for line in text.splitlines() if line.startswith("| tiny learned lr 0.0001 | zero |"))
    assert f"| 8 | {rho:+.3f} |" in row, (row, rho)
    assert float(row.split("|")[5]) < 0.01, row
    with open(os.path.join(tmp, "interventions_table.csv")) as f:
        written = f.read()
    assert "symmetry_minus_matched" in written and "zero@block0" in written and "zero_row@position1" in written
    assert "trend_sigma:zero" in written
print("interventions table: 1 passed, 0 failed")
