#!/usr/bin/env python3
"""Experiment 1's regime map from `loci run configs/paper/exp1_regime_map.yaml` (then `loci analyze` on its runs):
per cell (PE type, lr, weight decay, the PE's own decay, sigma) over seeds, the final accuracy, the PE's RSA and its
attention term's RSA beside their epoch-0 values and permutation p, the onset epoch of each (apps/analysis/onset.hpp),
and the PE norm's ratio to its draw; then the fit of the onset against 1/(lr * wd). Writes a markdown table to
stdout and, with --figure FILE, the map as a figure.

  /usr/bin/python3 bench/exp1_regime_map.py runs/exp1_regime_map/runs [--figure regime_map.png]
"""

import argparse
import json
import math
import os
import statistics
import sys


def load_runs(root):
    runs = []
    for name in sorted(os.listdir(root)):
        folder = os.path.join(root, name)
        try:
            with open(os.path.join(folder, "identity.json")) as f:
                keys = json.load(f)["keys"]
            with open(os.path.join(folder, "analysis.json")) as f:
                analysis = json.load(f)
        except (OSError, ValueError, KeyError):
            continue  # not trained or not analysed yet
        runs.append((keys, analysis))
    return runs


def number(text):
    try:
        return float(text)
    except (TypeError, ValueError):
        return float("nan")


def cell_of(keys):
    wd = number(keys.get("train.weight_decay"))
    pe_wd = keys.get("train.pe.weight_decay", "null")
    pe_wd = wd if pe_wd in ("null", None, "") else number(pe_wd)
    return (keys.get("model.pe.type", "learned"), number(keys["train.lr"]), wd, pe_wd,
            number(keys["model.pe.init.std"]))


def finite(values):
    return [v for v in values if isinstance(v, (int, float)) and math.isfinite(v)]


def mean(values):
    v = finite(values)
    return statistics.fmean(v) if v else float("nan")


def final(a, key):
    v = a.get("final", {}).get(key)
    return v if isinstance(v, (int, float)) else float("nan")


def norm_ratio(a):
    e = a.get("evaluations", [])
    if len(e) < 2:
        return float("nan")
    return e[-1]["mean"].get("norm_frobenius", float("nan")) / e[0]["mean"].get("norm_frobenius", float("nan"))


def last_epoch(a):
    return max((c["epoch"] for c in a.get("curves", [])), default=float("nan"))


def fmt(v, spec=".3f"):
    return "" if not math.isfinite(v) else format(v, spec)


def onsets(runs, key):
    found = [final(a, key) for a in runs]
    hit = finite(found)
    return f"{'/'.join(f'{v:g}' for v in hit) or '—'} ({len(hit)}/{len(found)})"


def table(cells):
    head = ("| PE | lr | wd | PE wd | σ | seeds | epochs | human % | train % | PE RSA (epoch 0) | p | onset | "
            "term RSA (epoch 0) | p | onset | norm / draw |")
    lines = [head, "|" + "---|" * (head.count("|") - 1)]
    for (pe, lr, wd, pe_wd, sigma), runs in sorted(cells.items(), key=lambda kv: (kv[0][0], -kv[0][1], -kv[0][2],
                                                                                  -kv[0][3], kv[0][4])):
        acc = lambda split, k="accuracy": mean([a["metrics"].get(split, {}).get(k, float("nan")) for a in runs])
        lines.append(
            f"| {pe} | {lr:g} | {wd:g} | {pe_wd:g} | {sigma:g} | {len(runs)} | "
            f"{fmt(mean([last_epoch(a) for a in runs]), 'g')} | {fmt(100 * acc('human'), '.1f')} | "
            f"{fmt(100 * acc('train'), '.1f')} | "
            f"{fmt(mean([final(a, 'rsa_spearman') for a in runs]), '+.3f')} "
            f"({fmt(mean([final(a, 'init_rsa_spearman') for a in runs]), '+.3f')}) | "
            f"{fmt(statistics.median(finite([final(a, 'rsa_p_value') for a in runs]) or [float('nan')]))} | "
            f"{onsets(runs, 'rsa_onset_epoch')} | "
            f"{fmt(mean([final(a, 'qk_rsa_spearman') for a in runs]), '+.3f')} "
            f"({fmt(mean([final(a, 'init_qk_rsa_spearman') for a in runs]), '+.3f')}) | "
            f"{fmt(statistics.median(finite([final(a, 'qk_rsa_p_value') for a in runs]) or [float('nan')]))} | "
            f"{onsets(runs, 'qk_rsa_onset_epoch')} | {fmt(mean([norm_ratio(a) for a in runs]), '.2f')} |")
    return "\n".join(lines)


def onset_fit(cells, key):
    """Least squares of log(onset) on log(1 / (lr * PE wd)) over runs with decay on the PE and an onset."""
    xs, ys = [], []
    for (pe, lr, wd, pe_wd, sigma), runs in cells.items():
        if pe_wd <= 0 or pe != "learned":
            continue
        for a in runs:
            o = final(a, key)
            if math.isfinite(o) and o > 0:
                xs.append(math.log(1.0 / (lr * pe_wd)))
                ys.append(math.log(o))
    if len(xs) < 3 or len(set(xs)) < 2:
        return f"{key}: {len(xs)} runs with an onset under decay; too few to fit"
    mx, my = statistics.fmean(xs), statistics.fmean(ys)
    sxx = sum((x - mx) ** 2 for x in xs)
    slope = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sxx
    resid = [y - (my + slope * (x - mx)) for x, y in zip(xs, ys)]
    r2 = 1 - sum(r * r for r in resid) / max(sum((y - my) ** 2 for y in ys), 1e-300)
    caveat = (f"; only {len(set(xs))} distinct lr·wd values, not yet a test of the law" if len(set(xs)) < 3 else "")
    return (f"{key}: log onset = {my - slope * mx:.2f} + {slope:.2f} · log(1/(lr·wd)) over {len(xs)} runs, "
            f"R² {r2:.2f} (a slope of 1 is the law onset ∝ 1/(lr·wd)){caveat}")


def figure(cells, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, axes = plt.subplots(1, 2, figsize=(10, 4))
    for (pe, lr, wd, pe_wd, sigma), runs in cells.items():
        for a in runs:
            x = 1.0 / (lr * pe_wd) if pe_wd > 0 else float("nan")
            for ax, key in zip(axes, ("rsa_onset_epoch", "qk_rsa_onset_epoch")):
                o = final(a, key)
                if math.isfinite(x):
                    ax.scatter(x, o if math.isfinite(o) else last_epoch(a) * 1.15,
                               marker="o" if math.isfinite(o) else "^", color="C0" if sigma < 1 else "C3",
                               facecolors="none" if pe != "learned" else None)
    for ax, title in zip(axes, ("PE RSA onset", "attention term RSA onset")):
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("1 / (lr · weight decay of the PE)")
        ax.set_ylabel("onset epoch (▲: none by the last epoch)")
        ax.set_title(title + " (blue σ 0.2, red σ 2)")
        ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=120)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("runs")
    parser.add_argument("--figure")
    args = parser.parse_args()
    runs = load_runs(args.runs)
    if not runs:
        sys.exit(f"{args.runs}: no analysed runs (run `loci analyze {args.runs}` first)")
    cells = {}
    for keys, a in runs:
        cells.setdefault(cell_of(keys), []).append(a)
    print(table(cells))
    print()
    for key in ("rsa_onset_epoch", "qk_rsa_onset_epoch"):
        print("- " + onset_fit(cells, key))
    if args.figure:
        figure(cells, args.figure)


if __name__ == "__main__":
    main()
