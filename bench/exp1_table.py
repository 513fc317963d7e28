#!/usr/bin/env python3
"""Experiment 1's table (issue 54): each PE row of a loci sweep beside the authors' released curves.

For every group of runs in a `loci analyze` runs.csv: human-puzzle, test and train accuracy (mean +- sd over
seeds), the robustness column (human accuracy with noise of sd 0.5 on the token embeddings, where the runs made the
test), and the PE's RSA beside its epoch-0 value; for the rows the authors released (learned sigma, 2d-fixed), their
human-puzzle accuracy at epochs 200 and 4000 (mean +- sd over their 15 seeds) and loci minus the authors at 200 with
its Welch 95% interval. Reads only CSV (pandas, scipy); loci need not be installed.

  /usr/bin/python3 bench/exp1_table.py runs/exp1_table/analysis/runs.csv \\
      --authors ../shared/data/lst/authors_curves.csv > table.md
"""
import argparse
import math

import numpy as np
import pandas as pd
from scipy import stats


def authors_rows(path):
    """The authors' human-puzzle accuracy (%) per (pe, init_std) at each released epoch, one value per seed."""
    a = pd.read_csv(path)
    a = a[(a.phase == "validation") & (a.condition == "average")]
    a = a.assign(accuracy=100 * a.accuracy, init_std=a.init_std.round(2))
    return a


def authors_values(a, pe_type, sigma, epoch):
    if pe_type == "sinusoidal_2d":
        rows = a[(a.pe == "2dpe") & (a.epoch == epoch)]
    elif pe_type == "learned" and sigma is not None and not math.isnan(sigma):
        rows = a[(a.pe == "learned") & (a.init_std == round(sigma, 2)) & (a.epoch == epoch)]
    else:
        return None
    return rows.accuracy.to_numpy() if len(rows) else None


def welch(x, y):
    """Mean of x minus mean of y with Welch's 95% interval."""
    vx, vy = x.var(ddof=1) / len(x), y.var(ddof=1) / len(y)
    se = math.sqrt(vx + vy)
    df = (vx + vy) ** 2 / (vx ** 2 / (len(x) - 1) + vy ** 2 / (len(y) - 1))
    t = stats.t.ppf(0.975, df)
    d = x.mean() - y.mean()
    return d, d - t * se, d + t * se


def cell(values, digits=1):
    values = values[~np.isnan(values)]
    if len(values) == 0:
        return "-"
    if len(values) == 1:
        return f"{values[0]:.{digits}f}"
    return f"{values.mean():.{digits}f} ± {values.std(ddof=1):.{digits}f}"


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("runs_csv")
    p.add_argument("--authors", default="../shared/data/lst/authors_curves.csv")
    p.add_argument("--noise", default="0.5", help="the robustness column's noise sd (default 0.5)")
    args = p.parse_args()
    runs = pd.read_csv(args.runs_csv)
    for c in runs.columns:  # runs.csv holds accuracies as fractions; the table shows percent, as the authors' do
        if "_accuracy" in c:
            runs[c] = 100 * runs[c]
    runs = runs[runs.get("partial", pd.Series(False, index=runs.index)).fillna(False) == False]  # noqa: E712
    authors = authors_rows(args.authors)
    noise = f"human_accuracy_noise{args.noise}"
    print(f"| PE | runs | human | test | train | human, noise sd {args.noise} | PE RSA (epoch 0) | authors, epoch 200 "
          "(15 seeds) | authors, epoch 4000 | loci − authors at 200 [95% CI] |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for group, g in runs.groupby("group", sort=False):
        pe_type, sigma = g.pe_type.iloc[0], g.sigma.iloc[0]
        human = g.human_accuracy.to_numpy(dtype=float)
        col = lambda name: g[name].to_numpy(dtype=float) if name in g else np.array([np.nan])  # noqa: E731
        rsa = f"{cell(col('rsa_spearman'), 3)} ({cell(col('init_rsa_spearman'), 3)})"
        a200, a4000 = (authors_values(authors, pe_type, sigma, e) for e in (200, 4000))
        # The authors trained at lr 1e-4 without decay: other settings get no authors' column.
        for key, theirs in (("train.lr", 0.0001), ("train.weight_decay", 0.0)):
            if key in g and not np.allclose(g[key].to_numpy(dtype=float), theirs):
                a200 = a4000 = None
        diff = "-"
        if a200 is not None and len(human) > 1:
            d, lo, hi = welch(human, a200)
            diff = f"{d:+.1f} [{lo:+.1f}, {hi:+.1f}]"
        print(f"| {group} | {len(g)} | {cell(human)} | {cell(col('test_accuracy'))} | {cell(col('train_accuracy'))} | "
              f"{cell(col(noise))} | {rsa} | {cell(a200) if a200 is not None else '-'} | "
              f"{cell(a4000) if a4000 is not None else '-'} | {diff} |")


if __name__ == "__main__":
    main()
