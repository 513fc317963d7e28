"""Keeping the gradient alive (issue 53 item 3): each intervention against the plain optimiser at the same sigma, from
the runs.csv of a bundle (bench/data/NAME/runs.csv, `loci analyze`'s per-run table).

    /usr/bin/python3 bench/gradient_alive.py bench/data/exp2_gradient_alive/runs.csv --out bench/data/gradient_alive/exp2
    /usr/bin/python3 bench/gradient_alive.py bench/data/exp1_gradient_alive/runs.csv --out bench/data/gradient_alive/exp1
    (against the restated regime map's cells instead, made by another build elsewhere: --baseline
     bench/data/exp1_regime_restated/runs.csv "train.lr=0.0001,train.weight_decay=0.0")

A run's condition is its sweep point without sigma and seed (train.adam_eps=0.0001, train.optimizer=sgd, ...; none:
the baseline; --baseline takes it from another bundle's runs of one condition, made with the same data and
settings). Every run draws its own PE (model.pe.draw: run), so conditions share the data but no draw: each
difference is unpaired, with a 95% Welch interval, Welch's t p, and an exact two-sided permutation p over every split
of the runs into the two groups (3 + 3 runs: 20 splits, so no permutation p is below 0.1 and none survives Holm;
Welch's p assumes normal runs and can). Holm holds over the conditions x sigma of each metric, for each kind of p. Then, across all runs of a sigma, the Spearman correlation of log(|dP| / |P(0)|) with RSA(dP) and with
RSA(P): does the displacement's geometry grow with its size?"""
import argparse
import itertools
import math
import os
import sys

import numpy as np
import pandas as pd
from scipy import stats

METRICS = [  # column, label; those a table lacks are left out
    ("disp_norm_ratio", "|dP| / |P(0)|"),
    ("disp_rsa_spearman", "RSA(dP)"),
    ("rsa_spearman", "RSA(P)"),
    ("init_rsa_spearman", "RSA(P) at epoch 0"),
    ("disp_predicted_rsa", "additive prediction"),
    ("train_loss", "train loss"),
    ("test_mse", "test MSE"),
    ("test_r2_token_mean", "test R²"),
    ("test_accuracy", "test accuracy"),
    ("human_accuracy", "human accuracy"),
]


def condition_of(folder):
    parts = [p for p in os.path.basename(folder.rstrip("/")).split(",")
             if not p.startswith("model.pe.init.std=") and not p.startswith("seed=")]
    return ",".join(parts) if parts else "baseline"


def sigma_of(row):
    if "model.pe.init.std" in row and not pd.isna(row["model.pe.init.std"]):
        return float(row["model.pe.init.std"])
    return float(row["sigma"])


def permutation_p(a, b):
    """Exact two-sided p of the difference of means over every split of a + b into groups of their sizes."""
    pooled = np.concatenate([a, b])
    observed = abs(a.mean() - b.mean())
    count = total = 0
    for chosen in itertools.combinations(range(len(pooled)), len(a)):
        mask = np.zeros(len(pooled), bool)
        mask[list(chosen)] = True
        total += 1
        count += abs(pooled[mask].mean() - pooled[~mask].mean()) >= observed - 1e-12
    return count / total


def welch_ci(a, b):
    d = a.mean() - b.mean()
    va, vb = a.var(ddof=1) / len(a), b.var(ddof=1) / len(b)
    se = math.sqrt(va + vb)
    if se == 0:
        return d, d, d
    df = (va + vb) ** 2 / (va ** 2 / (len(a) - 1) + vb ** 2 / (len(b) - 1))
    h = stats.t.ppf(0.975, df) * se
    return d, d - h, d + h


def holm(ps):
    order = np.argsort(ps)
    adjusted = np.empty(len(ps))
    running = 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (len(ps) - rank) * ps[i]))
        adjusted[i] = running
    return adjusted


def mean_sd_cells(g, metrics):
    """Each metric over the runs of g as a table cell: mean ± sd, or the one value."""
    return [f"{g[m].mean():.3f} ± {g[m].std(ddof=1):.3f}" if len(g) > 1 else f"{g[m].mean():.3f}" for m, _ in metrics]


def unpaired(x, y):
    """x minus y for independent runs: the difference, its Welch 95% interval, Welch's p and the permutation p."""
    d, lo, hi = welch_ci(x, y)
    welch = stats.ttest_ind(x, y, equal_var=False).pvalue if np.var(x) + np.var(y) > 0 else 1.0
    return dict(n=f"{len(x)}+{len(y)}", diff=d, lo=lo, hi=hi, p=permutation_p(x, y), welch_p=welch)


def with_holm(family):
    """The family's rows with Holm's adjustment of each kind of p over the family."""
    if family:
        for r, h, hw in zip(family, holm(np.array([r["p"] for r in family])),
                            holm(np.array([r["welch_p"] for r in family]))):
            r["holm"], r["welch_holm"] = h, hw
    return family


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("runs_csv", nargs="+")
    ap.add_argument("--baseline", nargs=2, metavar=("RUNS_CSV", "CONDITION"),
                    help="the baseline runs: those of RUNS_CSV whose condition is CONDITION")
    ap.add_argument("--out", help="folder for the figure and the comparisons as CSV")
    a = ap.parse_args()
    runs = pd.concat([pd.read_csv(p) for p in a.runs_csv], ignore_index=True)
    runs["condition"] = runs["folder"].map(condition_of)
    if a.baseline:
        base = pd.read_csv(a.baseline[0])
        base["condition"] = base["folder"].map(condition_of)
        base = base[base.condition == a.baseline[1]].assign(condition="baseline")
        if base.empty:
            sys.exit(f"--baseline: no run of {a.baseline[0]} has the condition {a.baseline[1]}")
        runs = pd.concat([runs, base], ignore_index=True)
    runs = runs[~runs.get("partial", pd.Series(False, index=runs.index)).fillna(False).astype(bool)]
    runs["sigma_"] = runs.apply(sigma_of, axis=1)
    metrics = [(c, l) for c, l in METRICS if c in runs.columns and runs[c].notna().any()]
    conditions = ["baseline"] + sorted(c for c in runs["condition"].unique() if c != "baseline")
    sigmas = sorted(runs["sigma_"].unique())

    print("Mean ± sd over runs:\n")
    print("| condition | σ | runs | " + " | ".join(l for _, l in metrics) + " |")
    print("|---|---:|---:|" + "---:|" * len(metrics))
    for c in conditions:
        for s in sigmas:
            g = runs[(runs.condition == c) & (runs.sigma_ == s)]
            if g.empty:
                continue
            print(f"| {c} | {s:g} | {len(g)} | " + " | ".join(mean_sd_cells(g, metrics)) + " |")

    rows = []
    for m, label in metrics:
        family = []
        for c in conditions[1:]:
            for s in sigmas:
                x = runs[(runs.condition == c) & (runs.sigma_ == s)][m].dropna().to_numpy()
                y = runs[(runs.condition == "baseline") & (runs.sigma_ == s)][m].dropna().to_numpy()
                if len(x) >= 2 and len(y) >= 2:
                    family.append(dict(metric=label, condition=c, sigma=s, **unpaired(x, y)))
        rows += with_holm(family)
    print(f"\nEach condition minus the baseline at the same σ (Welch 95% interval; exact permutation p; Holm over "
          f"the {len(conditions) - 1} conditions x {len(sigmas)} σ of each metric):\n")
    print("| metric | condition | σ | runs | difference [95% CI] | Welch p | its Holm | permutation p | its Holm |")
    print("|---|---|---:|---|---|---:|---:|---:|---:|")
    for r in rows:
        print(f"| {r['metric']} | {r['condition']} | {r['sigma']:g} | {r['n']} | {r['diff']:+.3f} "
              f"[{r['lo']:+.3f}, {r['hi']:+.3f}] | {r['welch_p']:.4f} | {r['welch_holm']:.3f} | {r['p']:.2f} | "
              f"{r['holm']:.2f} |")

    print("\nAcross all runs of a σ: Spearman of log(|dP| / |P(0)|) with each geometry (permutation p, 10,000):\n")
    print("| σ | runs | with RSA(dP) | p | with RSA(P) | p |")
    print("|---:|---:|---:|---:|---:|---:|")
    rng = np.random.default_rng(0)
    for s in sigmas:
        g = runs[runs.sigma_ == s].dropna(subset=["disp_norm_ratio", "disp_rsa_spearman", "rsa_spearman"])
        if len(g) < 4:
            continue
        size = np.log(g["disp_norm_ratio"].to_numpy())
        cells = []
        for col in ("disp_rsa_spearman", "rsa_spearman"):
            v = g[col].to_numpy()
            rho = stats.spearmanr(size, v)[0]
            null = [stats.spearmanr(size, rng.permutation(v))[0] for _ in range(10000)]
            p = (1 + sum(abs(n) >= abs(rho) - 1e-12 for n in null)) / 10001
            cells += [f"{rho:+.2f}", f"{p:.3f}"]
        print(f"| {s:g} | {len(g)} | " + " | ".join(cells) + " |")

    if a.out:
        os.makedirs(a.out, exist_ok=True)
        pd.DataFrame(rows).to_csv(os.path.join(a.out, "comparisons.csv"), index=False)
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        fig, axes = plt.subplots(2, len(sigmas), figsize=(5 * len(sigmas), 7.5), squeeze=False)
        for row, (col, label) in enumerate((("disp_rsa_spearman", "RSA(dP)"), ("rsa_spearman", "RSA(P)"))):
            for ax, s in zip(axes[row], sigmas):
                for c in conditions:
                    g = runs[(runs.condition == c) & (runs.sigma_ == s)]
                    ax.scatter(g["disp_norm_ratio"], g[col], label=c, s=25)
                ax.set_xscale("log")
                ax.set_xlabel("|dP| / |P(0)|")
                ax.set_ylabel(label)
                ax.set_title(f"σ {s:g}")
        axes[0][0].legend(fontsize=7)
        fig.tight_layout()
        fig.savefig(os.path.join(a.out, "gradient_alive.png"), dpi=110)
        print(f"\nfigure: {os.path.join(a.out, 'gradient_alive.png')}", file=sys.stderr)


if __name__ == "__main__":
    main()
