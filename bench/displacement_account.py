#!/usr/bin/env python3
"""The displacement account across runs (issue 53 item 1), from bundles alone (bench/bundles/bundle_runs.py), with
numpy and scipy: for every run of a drawn PE, P(end) = P(0) + dP, per block

  - RSA(P(end)), RSA(dP) and RSA(P(0)) (Spearman between Euclidean PE distances and the true distances),
  - ||dP|| / ||P(0)||,
  - the draw-free prediction: the mean RSA of Q + dP over independent isotropic draws Q of P(0)'s norm,

each the mean over blocks, as loci's analysis.json (disp_norm_ratio, disp_predicted_rsa) gives them. Over all runs it
reports how well the prediction matches the trained PE's RSA (Pearson and Spearman over runs, the mean of observed
minus predicted with its 95% t interval) and where it fails (the cells whose mean residual is largest), and draws
observed against predicted and RSA against the norm ratio.

    /usr/bin/python3 bench/displacement_account.py BUNDLE.h5 [BUNDLE.h5 ...] --out DIR [--draws 20]
"""
import argparse
import json
import os
import sys
import zlib

import h5py
import numpy as np
from scipy import stats


def distances(x):
    return np.sqrt(((x[:, None, :] - x[None, :, :]) ** 2).sum(-1))


def upper(m):
    return m[np.triu_indices(len(m), 1)]


def rsa(pe, truth_upper):
    return stats.spearmanr(upper(distances(pe)), truth_upper).correlation


def account(p0, p1, truth_upper, rng, draws):
    moved = p1 - p0
    norm0 = np.linalg.norm(p0)
    predicted = []
    for _ in range(draws):
        q = rng.standard_normal(p0.shape)
        q *= norm0 / np.linalg.norm(q)
        predicted.append(rsa(q + moved, truth_upper))
    # The draw's share kept: P(end) = a P(0) + R with R orthogonal to P(0). Decay shrinks a below 1, and then dP holds
    # -(1 - a) P(0), a copy of the draw, so the additive account cannot hold; the kept-draw account adds R to
    # independent draws of a P(0)'s norm instead.
    a = float((p1 * p0).sum() / (p0 * p0).sum())
    rest = p1 - a * p0
    kept = []
    for _ in range(draws):
        q = rng.standard_normal(p0.shape)
        q *= abs(a) * norm0 / np.linalg.norm(q)
        kept.append(rsa(q + rest, truth_upper))
    return {"rsa": rsa(p1, truth_upper), "rsa_init": rsa(p0, truth_upper), "rsa_disp": rsa(moved, truth_upper),
            "norm_ratio": np.linalg.norm(moved) / norm0, "predicted": float(np.mean(predicted)),
            "kept": a, "rsa_rest": rsa(rest, truth_upper), "rest_ratio": np.linalg.norm(rest) / (abs(a) * norm0),
            "predicted_kept": float(np.mean(kept))}


def cell_of(identity, bundle):
    keys = identity["keys"]
    parts = [bundle, keys.get("model.pe.type", "?"), f"sigma {keys.get('model.pe.init.std')}"]
    for k in ("train.lr", "train.weight_decay", "task.objective"):
        if k in keys:
            parts.append(f"{k.split('.')[-1]} {keys[k]}")
    return " ".join(str(p) for p in parts)


def rows_of(path, draws):
    rows = []
    with h5py.File(path, "r") as f:
        bundle = f.attrs.get("name", os.path.basename(os.path.dirname(path)))
        for name, g in f.items():
            identity = json.loads(g.attrs["identity"])
            keys = identity["keys"]
            if keys.get("model.pe.init.name") != "normal" or int(g["epoch"][0]) != 0:
                continue
            blocks = sorted(k for k in g if k.startswith("placement_"))
            truth = upper(distances(g["positions"][:].astype(np.float64)))
            rng = np.random.default_rng(zlib.crc32((bundle + "/" + name).encode()))
            per = [account(g[b][0].astype(np.float64), g[b][1].astype(np.float64), truth, rng, draws) for b in blocks]
            if any(np.linalg.norm(g[b][1] - g[b][0]) == 0 for b in blocks):
                continue
            row = {k: float(np.mean([p[k] for p in per])) for k in per[0]}
            final = json.loads(g.attrs["analysis_final"]) if "analysis_final" in g.attrs else {}
            row["loci_predicted"] = final.get("disp_predicted_rsa") if final else None
            row["loci_kept"] = final.get("disp_kept_draw") if final else None
            row.update({"bundle": bundle, "run": name, "cell": cell_of(identity, bundle)})
            rows.append(row)
    return rows


def summary_lines(rows):
    obs = np.array([r["rsa"] for r in rows])
    pred = np.array([r["predicted"] for r in rows])
    resid = obs - pred
    n = len(rows)
    t = stats.t.ppf(0.975, n - 1)
    half = t * resid.std(ddof=1) / np.sqrt(n)
    lines = [f"runs: {n}",
             f"Pearson(observed, predicted) = {stats.pearsonr(obs, pred)[0]:.3f}; "
             f"Spearman = {stats.spearmanr(obs, pred).correlation:.3f}",
             f"observed - predicted: mean {resid.mean():+.4f} [{resid.mean() - half:+.4f}, {resid.mean() + half:+.4f}] "
             f"(95% t), sd {resid.std(ddof=1):.4f}, max |.| {np.abs(resid).max():.4f}",
             ]
    kept = np.array([r["predicted_kept"] for r in rows])
    rk = obs - kept
    hk = t * rk.std(ddof=1) / np.sqrt(n)
    lines.append(f"kept-draw account (R = P(end) - a P(0) added to draws of a's share of P(0)'s norm): "
                 f"Pearson {stats.pearsonr(obs, kept)[0]:.3f}, observed - predicted {rk.mean():+.4f} "
                 f"[{rk.mean() - hk:+.4f}, {rk.mean() + hk:+.4f}]")
    both = [(r["predicted"], r["loci_predicted"], r["kept"], r["loci_kept"]) for r in rows
            if r.get("loci_predicted") is not None]
    if both:
        b = np.array(both, dtype=float)
        lines.append(f"against loci's analysis.json ({len(b)} runs): disp_predicted_rsa differs by at most "
                     f"{np.abs(b[:, 0] - b[:, 1]).max():.4f} (other random draws), disp_kept_draw by "
                     f"{np.abs(b[:, 2] - b[:, 3]).max():.2e}")
    lines.append("per cell (n, mean RSA observed, predicted, residual with 95% t interval, norm ratio, RSA of dP, "
                 "RSA at epoch 0, share of the draw kept, kept-draw prediction):")
    cells = sorted({r["cell"] for r in rows})
    for c in cells:
        rs = [r for r in rows if r["cell"] == c]
        res = np.array([r["rsa"] - r["predicted"] for r in rs])
        h = stats.t.ppf(0.975, len(rs) - 1) * res.std(ddof=1) / np.sqrt(len(rs)) if len(rs) > 1 else float("nan")
        lines.append(f"  {c}: n {len(rs)}, {np.mean([r['rsa'] for r in rs]):+.3f} vs {np.mean([r['predicted'] for r in rs]):+.3f}, "
                     f"residual {res.mean():+.4f} [{res.mean() - h:+.4f}, {res.mean() + h:+.4f}], "
                     f"ratio {np.mean([r['norm_ratio'] for r in rs]):.3f}, dP {np.mean([r['rsa_disp'] for r in rs]):+.3f}, "
                     f"init {np.mean([r['rsa_init'] for r in rs]):+.3f}, kept {np.mean([r['kept'] for r in rs]):.3f}, "
                     f"kept-draw prediction {np.mean([r['predicted_kept'] for r in rs]):+.3f}")
    return lines


def draw(rows, out):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(1, 2, figsize=(10, 4.2))
    bundles = sorted({r["bundle"] for r in rows})
    for i, b in enumerate(bundles):
        rs = [r for r in rows if r["bundle"] == b]
        ax[0].scatter([r["predicted"] for r in rs], [r["rsa"] for r in rs], s=14, label=b, color=f"C{i}")
        ax[1].scatter([r["norm_ratio"] for r in rs], [r["rsa"] for r in rs], s=14, color=f"C{i}")
    lo = min(min(r["rsa"] for r in rows), min(r["predicted"] for r in rows)) - 0.05
    hi = max(max(r["rsa"] for r in rows), max(r["predicted"] for r in rows)) + 0.05
    ax[0].plot([lo, hi], [lo, hi], "k--", lw=0.8)
    ax[0].set_xlabel("predicted RSA: dP added to independent draws of P(0)'s norm")
    ax[0].set_ylabel("RSA of the trained PE")
    ax[0].legend(fontsize=7)
    ax[1].set_xscale("log")
    ax[1].set_xlabel("||dP|| / ||P(0)|| (log)")
    ax[1].set_ylabel("RSA of the trained PE")
    ax[0].set_title("prediction against observation (one point per run)", fontsize=9)
    ax[1].set_title("geometry against the displacement's size", fontsize=9)
    fig.tight_layout()
    fig.savefig(os.path.join(out, "displacement_account.png"), dpi=110)


def main(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("bundles", nargs="+")
    p.add_argument("--out", required=True)
    p.add_argument("--draws", type=int, default=20)
    a = p.parse_args(argv)
    rows = [r for b in a.bundles for r in rows_of(b, a.draws)]
    if len(rows) < 3:
        print("fewer than 3 runs of a drawn PE in the bundles", file=sys.stderr)
        return 1
    os.makedirs(a.out, exist_ok=True)
    cols = ["bundle", "cell", "run", "rsa", "predicted", "norm_ratio", "rsa_disp", "rsa_init", "kept", "rsa_rest",
            "predicted_kept"]
    with open(os.path.join(a.out, "runs.csv"), "w") as f:
        f.write(",".join(cols) + "\n")
        for r in rows:
            f.write(",".join(f'"{r[c]}"' if isinstance(r[c], str) else f"{r[c]:.6g}" for c in cols) + "\n")
    lines = summary_lines(rows)
    with open(os.path.join(a.out, "summary.txt"), "w") as f:
        f.write("\n".join(lines) + "\n")
    draw(rows, a.out)
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
