#!/usr/bin/env python3
"""Experiment 1 at 4000 epochs over training (issue 53 item 4), from each run's analysis.json (`loci analyze
--include-partial` scores runs still going): per evaluation the training loss, human-puzzle accuracy, the PE's RSA
with the grid beside its permutation null, and the displacement dP = P(t) - P(0): its size against the draw and its
own RSA. Per run it says when the training loss first reached zero (below 1e-3) and when ||dP|| stopped growing
(the first evaluation within 5% and within 1% of its largest value in the run, up to its last evaluation for a run still going), which is the question the issue asks.

    /usr/bin/python3 bench/exp1_long_curve.py RUN [RUN ...] --out DIR

DIR gets curve.csv (one row per run and evaluation), plateaus.csv (one row per run) and curve.png.
"""
import argparse
import csv
import json
import os
import sys

LOSS_ZERO = 1e-3
PLATEAU = (0.95, 0.99)


def label(run):
    return f"σ {run['options_std']}, seed {run['seed']}"


def read(folder):
    path = os.path.join(folder, "analysis.json")
    if not os.path.exists(path):
        sys.exit(f"exp1_long_curve: {path}: no analysis (run `loci analyze --include-partial` on the runs first)")
    with open(path) as f:
        a = json.load(f)
    curve = {(c["epoch"], c["split"]): c for c in a["curves"]}
    first = a["evaluations"][0]["mean"]["norm_frobenius"]
    rows = []
    for e in a["evaluations"]:
        m, d, ep = e["mean"], e.get("displacement") or {}, e["epoch"]
        train, human = curve.get((ep, "train"), {}), curve.get((ep, "human"), {})
        rows.append({
            "epoch": ep,
            "train_loss": train.get("loss"),
            "train_accuracy": train.get("accuracy"),
            "human_accuracy": human.get("accuracy"),
            "rsa": m.get("rsa_spearman"),
            "rsa_null_q95": m.get("rsa_null_q95"),
            "rsa_p_value": m.get("rsa_p_value"),
            "disp_rsa": d.get("rsa_spearman"),
            # Mean over blocks of ||dP||, over the mean of ||P(0)||: the size of what training wrote against the draw.
            "disp_norm_ratio": None if d.get("norm_frobenius") is None else d["norm_frobenius"] / first,
            "procrustes_disparity": m.get("procrustes_oracle_disparity"),
        })
    run = a["run"]
    meta = {"folder": folder, "seed": run.get("seed"), "group": run.get("group"),
            "options_std": std_of(run, folder), "partial": a.get("run", {}).get("partial", False)}
    return meta, rows


def std_of(run, folder):
    name = os.path.basename(os.path.normpath(folder))
    for part in name.split(","):
        if part.startswith("model.pe.init.std="):
            return part.split("=", 1)[1]
    return run.get("group", "?")


def plateaus(rows):
    """Epoch the loss first reached zero; first epochs within 5% and 1% of the largest ||dP|| in the run."""
    loss_zero = next((r["epoch"] for r in rows if r["train_loss"] is not None and r["train_loss"] < LOSS_ZERO), None)
    sizes = [(r["epoch"], r["disp_norm_ratio"]) for r in rows if r["disp_norm_ratio"] is not None]
    top = max((s for _, s in sizes), default=None)
    out = {"loss_zero_epoch": loss_zero, "last_epoch": rows[-1]["epoch"], "disp_norm_ratio_last": sizes[-1][1]
           if sizes else None, "disp_norm_ratio_max": top}
    for share in PLATEAU:
        key = f"disp_within_{round(100 * (1 - share))}pct_epoch"
        out[key] = next((e for e, s in sizes if top is not None and s >= share * top), None)
    return out


def figure(runs, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    panels = [("train_loss", "training loss (log)", True), ("human_accuracy", "human-puzzle accuracy", False),
              ("disp_norm_ratio", "||dP|| / ||P(0)||", False), ("rsa", "RSA(P) (dashed: null q95)", False),
              ("disp_rsa", "RSA(dP)", False)]
    fig, axes = plt.subplots(1, len(panels), figsize=(4 * len(panels), 3.4))
    for meta, rows in runs:
        for ax, (key, title, log) in zip(axes, panels):
            pts = [(r["epoch"], r[key]) for r in rows if r[key] is not None and (not log or r[key] > 0)]
            if not pts:
                continue
            line, = ax.plot(*zip(*pts), label=label(meta), lw=1.2)
            if key == "rsa":
                q = [(r["epoch"], r["rsa_null_q95"]) for r in rows if r["rsa_null_q95"] is not None]
                if q:
                    ax.plot(*zip(*q), ls="--", lw=0.8, color=line.get_color())
            if log:
                ax.set_yscale("log")
    for ax, (_, title, _) in zip(axes, panels):
        ax.set_title(title, fontsize=9)
        ax.set_xlabel("epoch")
    axes[0].legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def main(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("runs", nargs="+", help="run folders with analysis.json")
    p.add_argument("--out", required=True)
    a = p.parse_args(argv)
    runs = [read(f) for f in a.runs]
    os.makedirs(a.out, exist_ok=True)
    fields = ["run", "std", "seed"] + list(runs[0][1][0].keys())
    with open(os.path.join(a.out, "curve.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=fields)
        w.writeheader()
        for meta, rows in runs:
            for r in rows:
                w.writerow({"run": os.path.basename(os.path.normpath(meta["folder"])), "std": meta["options_std"],
                            "seed": meta["seed"], **r})
    summary = [{"run": os.path.basename(os.path.normpath(m["folder"])), "std": m["options_std"], "seed": m["seed"],
                **plateaus(rows)} for m, rows in runs]
    with open(os.path.join(a.out, "plateaus.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(summary[0].keys()))
        w.writeheader()
        w.writerows(summary)
    for s in summary:
        print(", ".join(f"{k} {v}" for k, v in s.items()))
    figure(runs, os.path.join(a.out, "curve.png"))
    print(f"exp1_long_curve: {a.out}/curve.csv, plateaus.csv, curve.png")


if __name__ == "__main__":
    main(sys.argv[1:])
