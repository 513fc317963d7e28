#!/usr/bin/env python3
"""The authors' released Experiment 1 accuracies, reduced to what loci's report marks beside a table (issue 54):
per PE (2d-fixed, learned at each init std) and per released epoch 200 and 4000, the human-puzzle (their
`validation`), test and train accuracy over their 15 seeds: mean, sd and a 95% t interval. Written to
apps/report/authors_exp1.csv, which the report reads; the curves themselves are MIT-licensed (Luke Hearne,
ljhearne/LSTNN_public; the licence travels as apps/report/LICENSE-LSTNN).

    /usr/bin/python3 bench/authors_reference.py ../shared/data/lst/authors_curves.csv apps/report/authors_exp1.csv
"""
import sys

import pandas as pd
from scipy import stats


def main(argv):
    curves, out = argv
    a = pd.read_csv(curves)
    a = a[(a.condition == "average") & a.epoch.isin([200, 4000])]
    rows = []
    for (pe, std, phase, epoch), g in a.groupby(["pe", a.init_std.round(2).fillna(-1), "phase", "epoch"]):
        x = 100 * g.accuracy.to_numpy()
        half = stats.t.ppf(0.975, len(x) - 1) * x.std(ddof=1) / len(x) ** 0.5
        split = {"validation": "human", "test": "test", "train": "train"}[phase]
        rows.append({"pe_type": "sinusoidal_2d" if pe == "2dpe" else "learned", "sigma": "" if std < 0 else std,
                     "split": split, "epoch": epoch, "seeds": len(x), "mean": round(x.mean(), 3),
                     "sd": round(x.std(ddof=1), 3), "ci_low": round(x.mean() - half, 3),
                     "ci_high": round(x.mean() + half, 3)})
    pd.DataFrame(rows).to_csv(out, index=False)
    print(f"{out}: {len(rows)} rows")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
