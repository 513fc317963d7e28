#!/usr/bin/env python3
"""Recomputes a RESULTS table from a bundle (bench/bundles/bundle_runs.py) with numpy and scipy alone, no loci: per
group of runs (runs whose identity differs only in seed and PE draw, and with --pool-datasets in dataset too), each split's final accuracy or MSE, the PE's
RSA (Spearman between its Euclidean distances and the true ones, mean over blocks) at the last evaluation beside
epoch 0 with its Mantel permutation p, and every comparison of two groups on the first task column and on RSA: the
difference with its 95% t interval and a permutation test (paired by shared dataset and PE draw where the groups share
them),
Holm over each metric's comparisons; and loci's trends.csv, each held-out metric's and RSA's Spearman rho with sigma
over the runs of each family trained at three or more sigma (within shared draws where the runs share them), Holm
over the trends. It checks loci's own numbers from outside loci.

    /usr/bin/python3 bench/bundles/recompute_table.py BUNDLE.h5 [--permutations 1000] [--pool-datasets]
"""
import argparse
import itertools
import json
import sys

import h5py
import numpy as np
from scipy import stats

OUTSIDE_GROUP = {"seed", "model.pe.draw"}
# With --pool-datasets (loci analyze's analyze.pool_datasets) the dataset is a replicate like the seed: a group spans
# the datasets, and a pair is two runs on the same dataset with the same draw.
DATASET_KEYS = {"data.shards_sha256", "data"}


def distances(x):
    return np.sqrt(((x[:, None, :] - x[None, :, :]) ** 2).sum(-1))


def upper(m):
    return m[np.triu_indices(len(m), 1)]


def rsa(tables, truth):
    return float(np.mean([stats.spearmanr(upper(distances(t)), upper(truth))[0] for t in tables]))


def mantel_p(tables, truth, permutations, rng):
    observed = rsa(tables, truth)
    hits = 0
    for _ in range(permutations):
        order = rng.permutation(len(truth))
        hits += rsa(tables, truth[np.ix_(order, order)]) >= observed - 1e-12
    return (1 + hits) / (1 + permutations)


def read_runs(path, permutations, pool_datasets=False):
    rng = np.random.default_rng(0)
    runs = []
    with h5py.File(path, "r") as f:
        for name in sorted(f):
            g = f[name]
            identity, summary = json.loads(g.attrs["identity"]), json.loads(g.attrs["summary"])
            truth = distances(g["positions"][:].astype(np.float64))
            # The PE tables loci probes: [evaluation, token, dim]; a relative PE's attention table is not one.
            placements = sorted(k for k in g if k.startswith("placement_") and g[k].ndim == 3
                                and g[k].shape[1] == len(truth))
            outside = OUTSIDE_GROUP | (DATASET_KEYS if pool_datasets else set())
            draw = summary.get("pe_draw", summary.get("seed"))
            dataset = identity["keys"].get("data.shards_sha256", "")
            run = {"name": name, "summary": summary, "draw": f"{dataset}|{draw}" if pool_datasets else draw,
                   "dataset": dataset,
                   "group": tuple(sorted((k, json.dumps(v)) for k, v in identity["keys"].items()
                                         if k not in outside))}
            for split, m in summary.get("final", {}).items():
                for key in ("accuracy", "mse"):
                    if isinstance(m.get(key), (int, float)):
                        run[f"{split}_{key}"] = m[key]
            if "analysis_final" in g.attrs:
                run["loci"] = json.loads(g.attrs["analysis_final"]) or {}
            if placements:
                first = [g[p][0].astype(np.float64) for p in placements]
                last = [g[p][1].astype(np.float64) for p in placements]
                run["init_rsa"] = rsa(first, truth)
                run["rsa"] = rsa(last, truth)
                run["rounded_ties"] = any(rounded_ties(t) for t in first + last)
                run["rsa_p"] = mantel_p(last, truth, permutations, rng)
            runs.append(run)
    return runs


def group_names(runs):
    """Each group named by the settings that vary between groups."""
    keys = sorted({k for r in runs for k, _ in r["group"]})
    varying = [k for k in keys if len({dict(r["group"]).get(k) for r in runs}) > 1]
    return {r["group"]: " ".join(f"{k}={json.loads(dict(r['group'])[k])}" for k in varying if k in dict(r["group"]))
            or "all" for r in runs}


def compare(a_runs, b_runs, column):
    a = {r["draw"]: r[column] for r in a_runs if column in r}
    b = {r["draw"]: r[column] for r in b_runs if column in r}
    shared = sorted(set(a) & set(b), key=str)
    if len(shared) >= 2 and len(a) == len(a_runs) and len(b) == len(b_runs):
        x, y = np.array([a[k] for k in shared]), np.array([b[k] for k in shared])
        d = y - x
        half = stats.t.ppf(0.975, len(d) - 1) * d.std(ddof=1) / np.sqrt(len(d))
        p = stats.permutation_test((x, y), lambda u, v: np.mean(v - u), permutation_type="samples",
                                   n_resamples=np.inf if len(d) <= 20 else 20000, random_state=0).pvalue
        return "paired", d.mean(), d.mean() - half, d.mean() + half, p, len(d)
    x, y = np.array(list(a.values())), np.array(list(b.values()))
    if len(x) < 2 or len(y) < 2:
        return None
    diff = y.mean() - x.mean()
    se = np.sqrt(x.var(ddof=1) / len(x) + y.var(ddof=1) / len(y))
    dof = se ** 4 / ((x.var(ddof=1) / len(x)) ** 2 / (len(x) - 1) + (y.var(ddof=1) / len(y)) ** 2 / (len(y) - 1))
    half = stats.t.ppf(0.975, dof) * se if se > 0 else 0.0
    p = stats.permutation_test((x, y), lambda u, v: np.mean(v) - np.mean(u), permutation_type="independent",
                               n_resamples=20000, random_state=0).pvalue
    return "independent", diff, diff - half, diff + half, p, f"{len(x)} vs {len(y)}"


def holm(ps):
    order = np.argsort(ps)
    out, running = [0.0] * len(ps), 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (len(ps) - rank) * ps[i]))
        out[i] = running
    return out


def rounded_ties(table):
    """Whether a PE's distances tie in exact arithmetic but not in floating point (a fixed sinusoid's, which depend on
    the offset alone): which of two such distances ranks first is then decided by rounding, which differs between
    loci's Eigen sums and numpy's, and moves Spearman's rho by up to about 1e-3 (a 1D sinusoid of 16 tokens: 15
    distinct distances over 120 pairs)."""
    d = np.sort(upper(distances(table)))
    gaps = np.diff(d)
    return bool(np.any((gaps > 0) & (gaps <= 1e-9 * max(d[-1], 1e-300))))


# How close this script's RSA must be to loci's: rounding alone, or, where rounding breaks exact ties, their spread.
TOLERANCE, TOLERANCE_TIES = 1e-6, 5e-3


def check_against_loci(runs):
    """The largest difference between this script's RSA (at the end and at epoch 0) and loci's analysis.json, and
    whether it passes: within TOLERANCE, or TOLERANCE_TIES for a run whose PE has ties broken by rounding."""
    worst, passes = 0.0, True
    for r in runs:
        for mine, theirs in (("rsa", "rsa_spearman"), ("init_rsa", "init_rsa_spearman")):
            value = r.get("loci", {}).get(theirs)
            if mine in r and isinstance(value, (int, float)):
                difference = abs(r[mine] - value)
                worst = max(worst, difference)
                passes &= difference <= (TOLERANCE_TIES if r.get("rounded_ties") else TOLERANCE)
    return worst, passes


SWEPT = "model.pe.init.std"


def trend_columns(task):
    """The held-out metrics a trend is tested on: no training split, and the test split's where there is one."""
    held = [c for c in task if not c.startswith("train")]
    return [c for c in held if not c.startswith("validation")] if any(c.startswith("test") for c in held) else held


def rank_trend(x, y, strata, permutations=10000, seed=0):
    """Spearman rho of y with x and its two-sided permutation p, as loci's trends.csv: with strata (runs sharing a PE
    draw), the size-weighted mean of the within-stratum rhos with y permuted within each stratum; without, over all
    runs, exact up to 8 runs. Returns (rho, p), NaN where nothing ranks."""
    x, y = np.asarray(x, dtype=np.float64), np.asarray(y, dtype=np.float64)
    if strata is None:
        rho = stats.spearmanr(x, y)[0]
        if not np.isfinite(rho):
            return np.nan, np.nan
        res = stats.permutation_test((y,), lambda v: stats.spearmanr(x, v)[0], permutation_type="pairings",
                                     n_resamples=np.inf if len(x) <= 8 else permutations, random_state=seed)
        return float(rho), float(res.pvalue)
    blocks = []
    for s in sorted(set(strata), key=str):
        idx = [i for i, t in enumerate(strata) if t == s]
        rx, ry = stats.rankdata(x[idx]), stats.rankdata(y[idx])
        rx, ry = rx - rx.mean(), ry - ry.mean()
        scale = np.sqrt((rx ** 2).sum() * (ry ** 2).sum())
        if len(idx) >= 2 and scale > 0:
            blocks.append((rx, ry, scale, len(idx)))
    if not blocks:
        return np.nan, np.nan
    weight = sum(b[3] for b in blocks)
    rho = sum(b[3] * (b[0] @ b[1]) / b[2] for b in blocks) / weight
    rng = np.random.default_rng(seed)
    null = np.array([sum(b[3] * (b[0] @ rng.permutation(b[1])) / b[2] for b in blocks) / weight
                     for _ in range(permutations)])
    tol = abs(rho) * 1e-12 + 1e-12
    greater = (np.sum(null >= rho - tol) + 1) / (permutations + 1)
    less = (np.sum(null <= rho + tol) + 1) / (permutations + 1)
    return float(rho), float(min(1.0, 2 * min(greater, less)))


def trends(runs, task):
    """Rows (family, metric, runs, rho, p, design) for each family of runs equal but in sigma, at three or more."""
    families = {}
    for r in runs:
        keys = dict(r["group"])
        if SWEPT not in keys:
            continue
        family = tuple((k, v) for k, v in r["group"] if k != SWEPT)
        families.setdefault(family, []).append((json.loads(keys[SWEPT]), r))
    varying = {k for f in families for k, _ in f if len({dict(g).get(k) for g in families}) > 1}
    rows = []
    for family, members in sorted(families.items()):
        if len({s for s, _ in members}) < 3:
            continue
        name = " ".join(f"{k}={json.loads(v)}" for k, v in family if k in varying) or "all runs"
        for column in trend_columns(task) + ["rsa"]:
            pairs = [(s, r[column], r["draw"]) for s, r in members if column in r]
            if len({s for s, _, _ in pairs}) < 3:
                continue
            draws = [d for _, _, d in pairs]
            strata = draws if len(set(map(str, draws))) < len(draws) else None
            rho, pv = rank_trend([s for s, _, _ in pairs], [v for _, v, _ in pairs], strata)
            if np.isfinite(rho):
                rows.append((name, column, len(pairs), rho, pv, "within shared draws" if strata else "all runs"))
    return rows


def settings_apart(a, b):
    """How many settings two group names ("key=value key=value ...") differ in; a key only one has counts."""
    sa = dict(item.split("=", 1) for item in a.split() if "=" in item)
    sb = dict(item.split("=", 1) for item in b.split() if "=" in item)
    return sum(sa.get(k) != sb.get(k) for k in set(sa) | set(sb))


def main(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("bundle")
    p.add_argument("--permutations", type=int, default=1000)
    p.add_argument("--comparisons", choices=["all", "one_setting"], default="all",
                   help="every pair of groups, or only pairs that differ in exactly one setting (loci analyze's "
                        "option of that name), Holm over the family compared")
    p.add_argument("--pool-datasets", action="store_true",
                   help="pool each group over its datasets as over its seeds (loci analyze's analyze.pool_datasets); "
                        "comparisons pair runs on the same dataset with the same PE draw")
    p.add_argument("--check", action="store_true",
                   help="also hold every run's RSA against loci's own analysis.json; exit 1 past 1e-6 (5e-3 for a "
                        "PE whose exact distance ties rounding breaks, a fixed sinusoid's)")
    a = p.parse_args(argv)
    runs = read_runs(a.bundle, a.permutations, a.pool_datasets)
    if a.check:
        worst, passes = check_against_loci(runs)
        compared = sum(1 for r in runs if "loci" in r)
        tied = sum(1 for r in runs if "loci" in r and r.get("rounded_ties"))
        print(f"RSA against loci's analysis.json over {compared} runs: largest difference {worst:.2g}"
              + (f" ({tied} runs whose PE has exact ties broken by rounding, held within {TOLERANCE_TIES:g}; "
                 f"the others within {TOLERANCE:g})" if tied else ""))
        if compared == 0 or not passes:
            return 1
    names = group_names(runs)
    groups = {}
    for r in runs:
        groups.setdefault(names[r["group"]], []).append(r)
    task = sorted({k for r in runs for k in r if k.endswith("_accuracy") or k.endswith("_mse")})
    datasets = len({r["dataset"] for r in runs})
    pooled = f", pooled over {datasets} datasets" if a.pool_datasets and datasets > 1 else ""
    print(f"{a.bundle}: {len(runs)} runs in {len(groups)} groups{pooled}\n")
    print("| group | runs | " + " | ".join(task) + " | RSA (epoch 0) | median Mantel p |")
    print("|---|---|" + "---|" * (len(task) + 2))
    for name, members in sorted(groups.items()):
        cells = []
        for c in task:
            v = np.array([r[c] for r in members if c in r])
            cells.append(f"{v.mean():.4f} ± {v.std(ddof=1):.4f}" if len(v) > 1 else f"{v.mean():.4f}")
        rsa_now = np.mean([r["rsa"] for r in members if "rsa" in r]) if any("rsa" in r for r in members) else np.nan
        rsa_0 = np.mean([r["init_rsa"] for r in members if "init_rsa" in r]) if any("rsa" in r for r in members) else np.nan
        p_med = np.median([r["rsa_p"] for r in members if "rsa_p" in r]) if any("rsa" in r for r in members) else np.nan
        print(f"| {name} | {len(members)} | " + " | ".join(cells) + f" | {rsa_now:+.3f} ({rsa_0:+.3f}) | {p_med:.3f} |")
    for column in ([task[0]] if task else []) + ["rsa"]:
        rows = []
        for (na, ra), (nb, rb) in itertools.combinations(sorted(groups.items()), 2):
            if a.comparisons == "one_setting" and settings_apart(na, nb) != 1:
                continue
            c = compare(ra, rb, column)
            if c:
                rows.append((na, nb) + c)
        if not rows:
            continue
        adjusted = holm([r[6] for r in rows])
        print(f"\n{column}: B − A [95% CI], permutation p, Holm over {len(rows)} comparisons\n")
        print("| A | B | design | n | B − A [95% CI] | p | Holm p |\n|---|---|---|---|---|---|---|")
        for r, h in zip(rows, adjusted):
            print(f"| {r[0]} | {r[1]} | {r[2]} | {r[7]} | {r[3]:+.4f} [{r[4]:+.4f}, {r[5]:+.4f}] | {r[6]:.3g} | {h:.3g} |")
    rows = trends(runs, task)
    if rows:
        adjusted = holm([r[4] for r in rows])
        print(f"\nTrends along sigma: Spearman rho over runs, permutation p, Holm over {len(rows)} trends\n")
        print("| family | metric | runs | rho | permuted | p | Holm p |\n|---|---|---|---|---|---|---|")
        for r, h in zip(rows, adjusted):
            print(f"| {r[0]} | {r[1]} | {r[2]} | {r[3]:+.3f} | {r[5]} | {r[4]:.3g} | {h:.3g} |")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
