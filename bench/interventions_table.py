#!/usr/bin/env python3
"""Does the model use its PE's geometry? (issue 56) From bundles alone (bench/bundles/bundle_runs.py of runs that
`loci intervene` scored), with numpy and scipy: per cell of runs (bundle, PE type, sigma, lr, decay, objective),
each intervention's change of the task score against the unchanged model (accuracy in points, or MSE) with its 95%
t interval over runs, the same per block (each block's PE changed alone) and per token (its rows zeroed alone: the
costliest token against the others), and the test the interventions were built for: each symmetry of the true positions against
its matched relabellings (the same tokens moved at random, the symmetry's fixed tokens kept), one number per run
(the symmetry's change less its matched relabellings' mean, averaged over the symmetries), with an exact sign-flip
p over runs and Holm over the cells. Where a family of runs (the same bundle, PE type, lr, decay and objective) was
trained at three or more sigma, each intervention's change is also tested for a trend with sigma: Spearman rho over
runs, a label-permutation p (independent draws) and Holm over the trend rows.

    /usr/bin/python3 bench/interventions_table.py BUNDLE.h5 [BUNDLE.h5 ...] [--out DIR] [--split human]
"""
import argparse
import csv
import itertools
import json
import os
import sys

import h5py
import numpy as np
from scipy import stats

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "bundles"))
from displacement_account import cell_of  # noqa: E402
from recompute_table import holm  # noqa: E402

ORDER = ["init", "displacement", "zero", "rescale", "oracle", "permute_random", "permute_symmetry", "permute_matched"]


def run_values(interventions, split, exclude=()):
    """One run's whole-model change per intervention (mean over variants) and its symmetry-minus-matched numbers
    (difference, the symmetries' mean change, their matched shuffles' mean), over the symmetries not in `exclude`."""
    rows = [r for r in interventions["results"] if r["scope"] == "all" and r["split"] == split]
    change = {}
    for name in {r["intervention"] for r in rows}:
        change[name] = float(np.mean([r["change"] for r in rows if r["intervention"] == name]))
    symmetry = {r["variant"].split(":", 1)[1]: r["change"] for r in rows if r["intervention"] == "permute_symmetry"}
    matched = {}
    for r in rows:
        if r["intervention"] == "permute_matched":
            matched.setdefault(r["variant"].split(":", 1)[1].rsplit("#", 1)[0], []).append(r["change"])
    kept = [s for s in symmetry if s in matched and s not in exclude]
    if not kept:
        return change, None
    sym = float(np.mean([symmetry[s] for s in kept]))
    mat = float(np.mean([np.mean(matched[s]) for s in kept]))
    return change, (sym - mat, sym, mat)


def block_values(interventions, split):
    """One run's change per (intervention, block) where each block's PE alone was changed (mean over variants)."""
    rows = [r for r in interventions["results"] if r["scope"].startswith("block") and r["split"] == split]
    out = {}
    for key in {(r["intervention"], int(r["scope"][len("block"):])) for r in rows}:
        out[key] = float(np.mean([r["change"] for r in rows if (r["intervention"], int(r["scope"][5:])) == key]))
    return out


def sign_flip_p(d):
    """Exact two-sided p of the mean of paired differences under random signs (all 2^n sign patterns up to n 16)."""
    d = np.asarray(d, dtype=np.float64)
    observed = abs(d.mean())
    if len(d) <= 16:
        means = [abs(np.mean(d * np.array(s))) for s in itertools.product((1, -1), repeat=len(d))]
    else:
        rng = np.random.default_rng(0)
        means = [abs(np.mean(d * rng.choice((1, -1), len(d)))) for _ in range(20000)]
    return float(np.mean(np.array(means) >= observed - 1e-12))


def interval(x):
    x = np.asarray(x, dtype=np.float64)
    if len(x) < 2:
        return x.mean(), np.nan, np.nan
    half = stats.t.ppf(0.975, len(x) - 1) * x.std(ddof=1) / np.sqrt(len(x))
    return x.mean(), x.mean() - half, x.mean() + half


def family_of(identity, bundle):
    """A cell without its sigma: the runs a trend over sigma is tested across."""
    keys = {k: v for k, v in identity["keys"].items() if k != "model.pe.init.std"}
    return cell_of({"keys": keys}, bundle).replace(" sigma None", "")


def spearman_permutation(x, y, permutations=10000, seed=0):
    """Spearman rho of y with x and its two-sided label-permutation p (scipy.stats.permutation_test's convention:
    twice the smaller one-sided p, the observed arrangement counted), as loci's trends.csv computes it."""
    rx, ry = stats.rankdata(x), stats.rankdata(y)
    rx, ry = rx - rx.mean(), ry - ry.mean()
    scale = np.sqrt((rx ** 2).sum() * (ry ** 2).sum())
    if scale == 0:
        return float("nan"), float("nan")
    rho = float(rx @ ry / scale)
    rng = np.random.default_rng(seed)
    null = np.array([rx @ rng.permutation(ry) for _ in range(permutations)]) / scale
    tol = abs(rho) * 1e-12
    greater = (np.sum(null >= rho - tol) + 1) / (permutations + 1)
    less = (np.sum(null <= rho + tol) + 1) / (permutations + 1)
    return rho, float(min(1.0, 2 * min(greater, less)))


def trend_table(cells, names):
    """Each intervention's change (and the symmetry-minus-matched number) against sigma, over the runs of each family
    trained at three or more sigma."""
    families = {}
    for c in cells.values():
        for r in c["runs"]:
            if r["sigma"] is not None:
                families.setdefault(r["family"], []).append(r)
    rows = []
    for family, runs in sorted(families.items()):
        if len({r["sigma"] for r in runs}) < 3:
            continue
        for n in names + ["symmetry_minus_matched"]:
            if n == "symmetry_minus_matched":
                pairs = [(r["sigma"], r[n][0]) for r in runs if r[n] is not None]
            else:
                pairs = [(r["sigma"], r["change"][n]) for r in runs if n in r["change"]]
            if len({s for s, _ in pairs}) < 3:
                continue
            rho, pv = spearman_permutation([s for s, _ in pairs], [v for _, v in pairs])
            if rho == rho:
                rows.append({"family": family, "intervention": n, "runs": len(pairs), "rho": rho, "p": pv})
    if not rows:
        return []
    for r, h in zip(rows, holm([r["p"] for r in rows])):
        r["holm_p"] = h
    print(f"\nEach change against sigma, over the runs of each family trained at three or more sigma: Spearman rho, "
          f"label-permutation p (10,000), Holm over the {len(rows)} trends:\n")
    print("| family | intervention | runs | rho with sigma | p | Holm p |\n|---|---|---:|---:|---:|---:|")
    for r in rows:
        print(f"| {r['family']} | {r['intervention']} | {r['runs']} | {r['rho']:+.3f} | {r['p']:.3g} | "
              f"{r['holm_p']:.3g} |")
    return [{"cell": r["family"], "split": "", "metric": "spearman", "runs": r["runs"],
             "intervention": f"trend_sigma:{r['intervention']}", "mean": r["rho"], "p": r["p"],
             "holm_p": r["holm_p"]} for r in rows]


def cells_of(paths, split, exclude=()):
    cells = {}
    for path in paths:
        with h5py.File(path, "r") as f:
            bundle = f.attrs.get("name", os.path.basename(os.path.dirname(path)))
            for name, g in f.items():
                if "interventions" not in g.attrs:
                    continue
                iv = json.loads(g.attrs["interventions"])
                chosen = split if split in iv["baseline"] else next(
                    (s for s in ("human", "test") if s in iv["baseline"]), sorted(iv["baseline"])[0])
                change, sym = run_values(iv, chosen, exclude)
                identity = json.loads(g.attrs["identity"])
                sigma = identity["keys"].get("model.pe.init.std")
                cell = cells.setdefault(cell_of(identity, bundle),
                                        {"metric": iv["metric"], "split": chosen, "runs": []})
                per_position = iv.get("per_position") or {}
                cell["runs"].append({"run": name, "change": change, "symmetry_minus_matched": sym,
                                     "sigma": None if sigma is None else float(sigma),
                                     "family": family_of(identity, bundle),
                                     "baseline": iv["baseline"][chosen], "blocks": block_values(iv, chosen),
                                     "positions": per_position.get("change"),
                                     "positions_split": per_position.get("split")})
    return cells


def per_block_table(cells, scale, shown=("init", "zero", "permute_random")):
    """Each block's PE changed alone, for the cells `loci intervene` scored per block: mean [95% CI] over runs."""
    rows, table = [], []
    for cell, c in sorted(cells.items()):
        blocks = sorted({b for r in c["runs"] for (_, b) in r["blocks"]})
        for n in shown:
            runs = [r for r in c["runs"] if all((n, b) in r["blocks"] for b in blocks)]
            if not blocks or len(runs) < 2:
                continue
            s, digits = scale[cell], 1 if scale[cell] == 100.0 else 3
            shown_blocks = []
            for b in blocks:
                m, lo, hi = interval([r["blocks"][(n, b)] * s for r in runs])
                shown_blocks.append(f"block {b}: {m:+.{digits}f} [{lo:+.{digits}f}, {hi:+.{digits}f}]")
                table.append({"cell": cell, "split": c["split"], "metric": c["metric"], "runs": len(runs),
                              "intervention": f"{n}@block{b}", "mean": m, "ci_low": lo, "ci_high": hi})
            rows.append(f"| {cell} | {len(runs)} | {n} | " + "; ".join(shown_blocks) + " |")
    if rows:
        print("\nEach block's PE changed alone (the other blocks' kept), mean [95% t interval] over runs:\n")
        print("| cell | runs | intervention | change per block |\n|---|---:|---|---|")
        print("\n".join(rows))
    return table


def per_position_table(cells, scale):
    """Each token's PE rows zeroed alone: the costliest token (by its mean over runs) against the others' mean."""
    rows, table = [], []
    for cell, c in sorted(cells.items()):
        runs = [r for r in c["runs"] if r["positions"]]
        if len(runs) < 2 or len({len(r["positions"]) for r in runs}) != 1:
            continue
        s, digits = scale[cell], 1 if scale[cell] == 100.0 else 3
        per = np.array([r["positions"] for r in runs], dtype=np.float64) * s
        costliest = int(np.argmin(per.mean(0)) if c["metric"] == "accuracy" else np.argmax(per.mean(0)))
        others = np.delete(per, costliest, axis=1).mean(1)
        m, lo, hi = interval(per[:, costliest])
        mo, lo_o, hi_o = interval(others)
        rows.append(f"| {cell} | {runs[0]['positions_split']} | {len(runs)} | {costliest} | {m:+.{digits}f} "
                    f"[{lo:+.{digits}f}, {hi:+.{digits}f}] | {mo:+.{digits}f} [{lo_o:+.{digits}f}, {hi_o:+.{digits}f}] |")
        for k in range(per.shape[1]):
            mk, lk, hk = interval(per[:, k])
            table.append({"cell": cell, "split": runs[0]["positions_split"], "metric": c["metric"], "runs": len(runs),
                          "intervention": f"zero_row@position{k}", "mean": mk, "ci_low": lk, "ci_high": hk})
    if rows:
        print("\nEach token's PE rows zeroed alone: the costliest token against the mean of the others, "
              "mean [95% t interval] over runs:\n")
        print("| cell | split | runs | costliest token | its change | the other tokens' mean change |\n"
              "|---|---|---:|---:|---|---|")
        print("\n".join(rows))
    return table


def main(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("bundles", nargs="+")
    p.add_argument("--out", help="folder for interventions_table.csv (one row per cell and intervention)")
    p.add_argument("--split", default="human", help="the split scored (default human, else test, else the first)")
    p.add_argument("--exclude-symmetry", action="append", default=[], metavar="NAME",
                   help="leave this symmetry out of the symmetry-minus-matched test (repeatable), e.g. '(y,x)', the "
                        "LST's transpose, which keeps the readout corner and so costs any model that fits the data "
                        "nothing (RESULTS \"Does the model use its PE's geometry?\")")
    a = p.parse_args(argv)
    cells = cells_of(a.bundles, a.split, tuple(a.exclude_symmetry))
    if not cells:
        print("no run in these bundles was scored by `loci intervene`")
        return 1
    scale = {name: (100.0 if c["metric"] == "accuracy" else 1.0) for name, c in cells.items()}
    names = [n for n in ORDER if any(n in r["change"] for c in cells.values() for r in c["runs"])]
    print("Change against the unchanged model, mean [95% t interval] over runs (accuracy in points, MSE as is):\n")
    print("| cell | split | runs | unchanged | " + " | ".join(names) + " |")
    print("|---|---|---:|---:|" + "---:|" * len(names))
    table = []
    for cell, c in sorted(cells.items()):
        s = scale[cell]
        base = np.mean([r["baseline"] for r in c["runs"]]) * s
        shown = []
        for n in names:
            m, lo, hi = interval([r["change"][n] * s for r in c["runs"] if n in r["change"]])
            digits = 1 if s == 100.0 else 3
            shown.append(f"{m:+.{digits}f}" + (f" [{lo:+.{digits}f}, {hi:+.{digits}f}]" if lo == lo else ""))
            table.append({"cell": cell, "split": c["split"], "metric": c["metric"], "runs": len(c["runs"]),
                          "intervention": n, "mean": m, "ci_low": lo, "ci_high": hi})
        print(f"| {cell} | {c['split']} | {len(c['runs'])} | {base:.{1 if s == 100.0 else 3}f} | " + " | ".join(shown) + " |")

    tested = [(cell, c) for cell, c in sorted(cells.items())
              if sum(r["symmetry_minus_matched"] is not None for r in c["runs"]) >= 2]
    if tested:
        ps = [sign_flip_p([r["symmetry_minus_matched"][0] for r in c["runs"] if r["symmetry_minus_matched"] is not None])
              for _, c in tested]
        adjusted = holm(ps)
        left = f" (left out: {', '.join(a.exclude_symmetry)})" if a.exclude_symmetry else ""
        print(f"\nSymmetries{left} minus their matched relabellings, per run (above 0 for accuracy, below for MSE: "
              f"keeping the geometry helps), exact sign-flip p, Holm over {len(tested)} cells:\n")
        print("| cell | runs | symmetries | matched | symmetry − matched [95% CI] | p | Holm p |\n"
              "|---|---:|---:|---:|---|---:|---:|")
        for (cell, c), pv, h in zip(tested, ps, adjusted):
            s = scale[cell]
            triples = [r["symmetry_minus_matched"] for r in c["runs"] if r["symmetry_minus_matched"] is not None]
            d = [t[0] * s for t in triples]
            m, lo, hi = interval(d)
            sym, mat = np.mean([t[1] for t in triples]) * s, np.mean([t[2] for t in triples]) * s
            print(f"| {cell} | {len(d)} | {sym:+.2f} | {mat:+.2f} | {m:+.2f} [{lo:+.2f}, {hi:+.2f}] | {pv:.3g} | "
                  f"{h:.3g} |")
            table.append({"cell": cell, "split": c["split"], "metric": c["metric"], "runs": len(d),
                          "intervention": "symmetry_minus_matched", "mean": m, "ci_low": lo, "ci_high": hi,
                          "p": pv, "holm_p": h})
    table += per_block_table(cells, scale)
    table += per_position_table(cells, scale)
    table += trend_table(cells, names)
    if a.out:
        os.makedirs(a.out, exist_ok=True)
        with open(os.path.join(a.out, "interventions_table.csv"), "w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=["cell", "split", "metric", "runs", "intervention", "mean", "ci_low",
                                              "ci_high", "p", "holm_p"])
            w.writeheader()
            w.writerows(table)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
