#!/usr/bin/env python3
"""Supervision density (issue 53 item 2): the LST's dense objective (every blank cell a target, read from its own
token) against the paper's single readout, in each cell of lr x sigma, from the runs.csv of two bundles.

    /usr/bin/python3 bench/supervision_density.py bench/data/exp1_dense/runs.csv \\
        bench/data/exp1_regime_restated/runs.csv --out bench/data/supervision_density

The dense runs are every run of the first table; the readout runs those of the second with no weight decay, at the
lr and sigma of a dense cell and of the same seeds (the restated regime map's cells: same data, model and schedule).
Every run draws its own PE (model.pe.draw: run), so the two objectives share the data but no draw and each difference
is unpaired: a 95% Welch interval, Welch's p, and the exact two-sided permutation p over every split of the runs
(5 + 5 runs: 252 splits, smallest p 0.008), each with Holm over the lr x sigma cells of its metric. Accuracy is the
target cell's in both objectives (the dense runs read it from the target's own token)."""
import argparse
import os
import sys

import numpy as np
import pandas as pd

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gradient_alive import mean_sd_cells, sigma_of, unpaired, with_holm  # noqa: E402  (one home for the tests)

METRICS = [  # column, label
    ("rsa_spearman", "RSA(P)"),
    ("init_rsa_spearman", "RSA(P) at epoch 0"),
    ("disp_rsa_spearman", "RSA(dP)"),
    ("disp_norm_ratio", "|dP| / |P(0)|"),
    ("human_accuracy", "human accuracy"),
    ("test_accuracy", "test accuracy"),
    ("train_loss", "train loss (its own objective)"),
]


def load(dense_csv, readout_csv):
    dense = pd.read_csv(dense_csv).assign(objective="dense_blank")
    readout = pd.read_csv(readout_csv).assign(objective="readout")
    for t in (dense, readout):
        t["sigma_"] = t.apply(sigma_of, axis=1)
        t.drop(t[t.get("partial", pd.Series(False, index=t.index)).fillna(False).astype(bool)].index, inplace=True)
    if "train.weight_decay" in readout:
        readout = readout[readout["train.weight_decay"].fillna(0.0) == 0.0]
    readout = readout[readout["pe_type"].isin(set(dense["pe_type"]))]
    cells = set(zip(dense["train.lr"], dense["sigma_"]))
    seeds = set(dense["seed"])
    readout = readout[[(lr, s) in cells for lr, s in zip(readout["train.lr"], readout["sigma_"])]]
    readout = readout[readout["seed"].isin(seeds)]
    return pd.concat([dense, readout], ignore_index=True), sorted(cells)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("dense_csv")
    ap.add_argument("readout_csv")
    ap.add_argument("--out", help="folder for comparisons.csv and the figure")
    a = ap.parse_args()
    runs, cells = load(a.dense_csv, a.readout_csv)
    if not (runs.objective == "readout").any() or not (runs.objective == "dense_blank").any():
        sys.exit(f"supervision_density: no readout run of {a.readout_csv} matches a dense cell of {a.dense_csv}")
    metrics = [(c, l) for c, l in METRICS if c in runs and runs[c].notna().any()]

    print("Mean ± sd over runs:\n")
    print("| objective | lr | σ | runs | " + " | ".join(l for _, l in metrics) + " |")
    print("|---|---:|---:|---:|" + "---:|" * len(metrics))
    for lr, s in cells:
        for obj in ("readout", "dense_blank"):
            g = runs[(runs.objective == obj) & (runs["train.lr"] == lr) & (runs.sigma_ == s)]
            if g.empty:
                continue
            print(f"| {obj} | {lr:g} | {s:g} | {len(g)} | " + " | ".join(mean_sd_cells(g, metrics)) + " |")

    rows = []
    for m, label in metrics:
        family = []
        for lr, s in cells:
            pick = (runs["train.lr"] == lr) & (runs.sigma_ == s)
            x = runs[pick & (runs.objective == "dense_blank")][m].dropna().to_numpy()
            y = runs[pick & (runs.objective == "readout")][m].dropna().to_numpy()
            if len(x) >= 2 and len(y) >= 2:
                family.append(dict(metric=label, lr=lr, sigma=s, **unpaired(x, y)))
        rows += with_holm(family)
    print(f"\nDense minus readout in each cell (Welch 95% interval; exact permutation p; Holm over the {len(cells)} "
          "cells of each metric):\n")
    print("| metric | lr | σ | runs | difference [95% CI] | Welch p | its Holm | permutation p | its Holm |")
    print("|---|---:|---:|---|---|---:|---:|---:|---:|")
    for r in rows:
        print(f"| {r['metric']} | {r['lr']:g} | {r['sigma']:g} | {r['n']} | {r['diff']:+.3f} [{r['lo']:+.3f}, "
              f"{r['hi']:+.3f}] | {r['welch_p']:.4f} | {r['welch_holm']:.3f} | {r['p']:.3f} | {r['holm']:.3f} |")

    if a.out:
        os.makedirs(a.out, exist_ok=True)
        pd.DataFrame(rows).to_csv(os.path.join(a.out, "comparisons.csv"), index=False)
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        shown = [(m, l) for m, l in metrics if m in ("rsa_spearman", "disp_rsa_spearman", "disp_norm_ratio",
                                                      "human_accuracy")]
        fig, axes = plt.subplots(1, len(shown), figsize=(4.2 * len(shown), 3.6), squeeze=False)
        for ax, (m, label) in zip(axes[0], shown):
            for k, (lr, s) in enumerate(cells):
                for j, (obj, colour) in enumerate((("readout", "tab:blue"), ("dense_blank", "tab:orange"))):
                    v = runs[(runs.objective == obj) & (runs["train.lr"] == lr) & (runs.sigma_ == s)][m].dropna()
                    xs = np.full(len(v), k + (j - 0.5) * 0.3)
                    ax.scatter(xs, v, s=18, color=colour, label=obj if k == 0 else None)
                    if len(v):
                        ax.hlines(v.mean(), xs[0] - 0.12, xs[0] + 0.12, color=colour)
            ax.set_xticks(range(len(cells)))
            ax.set_xticklabels([f"lr {lr:g}\nσ {s:g}" for lr, s in cells], fontsize=7)
            ax.set_title(label, fontsize=9)
            if m == "disp_norm_ratio":
                ax.set_yscale("log")
        axes[0][0].legend(fontsize=7)
        fig.tight_layout()
        fig.savefig(os.path.join(a.out, "supervision_density.png"), dpi=110)
        print(f"\nfigure: {os.path.join(a.out, 'supervision_density.png')}", file=sys.stderr)


if __name__ == "__main__":
    main()
