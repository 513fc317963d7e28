#!/usr/bin/env python3
"""The figures and page of `loci report DIR`: reads what `loci analyze` wrote (summary.csv, runs.csv and each run's
analysis.json) and writes report.html (self-contained: figures inline as SVG) and figures/*.svg + *.png beside it.

Usage: loci_report.py ANALYSIS_DIR OUT_DIR. On a problem it prints one line on stderr and exits 1."""

import csv
import html
import io
import json
import math
import os
import sys


def fail(message):
    print(message, file=sys.stderr)
    sys.exit(1)


try:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np
except ImportError as e:  # the setup script installs python3-matplotlib
    fail(f"the report needs matplotlib and numpy for {sys.executable} ({e}); install python3-matplotlib")

# Same bytes for the same inputs: no dates or random ids in the SVGs.
matplotlib.rcParams["svg.hashsalt"] = "loci"
matplotlib.rcParams["svg.fonttype"] = "path"
matplotlib.rcParams["figure.dpi"] = 100
matplotlib.rcParams["font.size"] = 9


def read_csv(path):
    try:
        with open(path, newline="") as f:
            return list(csv.DictReader(f))
    except OSError as e:
        fail(f"{path}: cannot be read ({e.strerror}); run `loci analyze` first")


def number(text):
    try:
        return float(text) if text not in ("", None) else math.nan
    except ValueError:
        return math.nan


def load_analyses(runs):
    out = []
    for r in runs:
        path = os.path.join(r["folder"], "analysis.json")
        try:
            with open(path) as f:
                out.append(json.load(f))
        except (OSError, ValueError) as e:
            fail(f"{path}: cannot be read ({e}); run `loci analyze` again")
    return out


class Figures:
    """Saves each figure as SVG and PNG under out/figures and keeps the SVG text for the page."""

    def __init__(self, out):
        self.folder = os.path.join(out, "figures")
        os.makedirs(self.folder, exist_ok=True)
        self.items = []

    def save(self, fig, name, title, caption):
        buf = io.StringIO()
        fig.savefig(buf, format="svg", bbox_inches="tight", metadata={"Date": None, "Creator": "loci"})
        svg = buf.getvalue()
        with open(os.path.join(self.folder, name + ".svg"), "w") as f:
            f.write(svg)
        fig.savefig(os.path.join(self.folder, name + ".png"), format="png", bbox_inches="tight", dpi=110,
                    metadata={"Software": "loci"})
        plt.close(fig)
        svg = svg[svg.find("<svg"):]  # drop the XML prologue and doctype: the page inlines the element
        self.items.append((name, title, caption, svg))


def task_columns(summary):
    """Accuracy columns (or MSE for regression) of every split, e.g. human_accuracy."""
    cols = [c[:-5] for c in summary[0].keys() if c.endswith("_mean")]
    acc = [c for c in cols if c.endswith("_accuracy")]
    return acc if acc else [c for c in cols if c.endswith("_mse")]


def split_of(col):
    return col.rsplit("_", 1)[0]


def by_sigma(summary):
    """Drawn PE groups (those with a sigma) per PE type, sorted by sigma; the rest are fixed references."""
    drawn, fixed = {}, []
    for row in summary:
        if row["sigma"] != "":
            drawn.setdefault(row["pe_type"] + ("" if row["placement"] == "per_block" else f" [{row['placement']}]"),
                             []).append(row)
        else:
            fixed.append(row)
    for rows in drawn.values():
        rows.sort(key=lambda r: number(r["sigma"]))
    return drawn, fixed


def plot_against_sigma(figs, summary, columns, name, title, caption, ylabel, scale=1.0):
    drawn, fixed = by_sigma(summary)
    if not drawn and not fixed:
        return
    fig, axes = plt.subplots(1, len(columns), figsize=(4.2 * len(columns), 3.4), squeeze=False)
    for ax, col in zip(axes[0], columns):
        for label, rows in drawn.items():
            x = [number(r["sigma"]) for r in rows]
            y = [number(r[col + "_mean"]) * scale for r in rows]
            e = [number(r[col + "_sd"]) * scale for r in rows]
            ax.errorbar(x, y, yerr=e, marker="o", capsize=3, label=label)
        for i, r in enumerate(fixed):
            y = number(r[col + "_mean"]) * scale
            if not math.isnan(y):
                ax.axhline(y, linestyle="--", color=f"C{(i + len(drawn)) % 10}", label=r["group"])
        ax.set_title(col.replace("_", " "))
        ax.set_xlabel("init scale σ")
        ax.set_ylabel(ylabel)
        if drawn and all(number(r["sigma"]) > 0 for rows in drawn.values() for r in rows):
            ax.set_xscale("log")
        ax.grid(alpha=0.3)
    axes[0][0].legend(fontsize=7)
    figs.save(fig, name, title, caption)


def one_per_group(analyses):
    """The analysis of the lowest seed of each group, in the summary's order (PE type, then sigma)."""
    best = {}
    for a in analyses:
        g = a["run"]["group"]
        if g not in best or a["run"]["seed"] < best[g]["run"]["seed"]:
            best[g] = a
    return sorted(best.values(), key=lambda a: (a["run"]["pe_type"], a["run"]["sigma"] if a["run"]["drawn"] else -1,
                                                a["run"]["group"]))


def plot_similarity(figs, analyses):
    shown = [a for a in one_per_group(analyses) if "final_similarity" in a]
    if not shown:
        return
    n = len(shown) + 1
    cols = min(n, 4)
    rows = math.ceil(n / cols)
    fig, axes = plt.subplots(rows, cols, figsize=(3.1 * cols, 3.0 * rows), squeeze=False)
    truth = np.array(shown[0]["true_distance"], dtype=float)
    im = axes[0][0].imshow(truth, cmap="viridis_r")
    axes[0][0].set_title("true distance")
    fig.colorbar(im, ax=axes[0][0], fraction=0.046)
    for k, a in enumerate(shown, start=1):
        ax = axes[k // cols][k % cols]
        sim = np.array([[math.nan if v is None else v for v in row] for row in a["final_similarity"]], dtype=float)
        im = ax.imshow(sim, cmap="viridis", vmin=-1, vmax=1)
        ax.set_title(f"{a['run']['group']}\nseed {a['run']['seed']}", fontsize=8)
        fig.colorbar(im, ax=ax, fraction=0.046)
    for k in range(n, rows * cols):
        axes[k // cols][k % cols].axis("off")
    for row in axes:
        for ax in row:
            ax.set_xticks([])
            ax.set_yticks([])
    figs.save(fig, "pe_similarity", "PE similarity beside the true distances",
              "Cosine similarity between the tokens' PE vectors, centred over tokens (first block, last evaluation), of one run per group, "
              "beside the true distance matrix: a PE that learned the geometry shows the same block pattern "
              "(similar where the distance is small).")


def plot_mds(figs, analyses):
    shown = [a for a in one_per_group(analyses) if "final_mds" in a]
    if not shown:
        return
    cols = min(len(shown), 4)
    rows = math.ceil(len(shown) / cols)
    fig, axes = plt.subplots(rows, cols, figsize=(3.1 * cols, 3.0 * rows), squeeze=False)
    for k, a in enumerate(shown):
        ax = axes[k // cols][k % cols]
        emb = np.array([[math.nan if v is None else v for v in row] for row in a["final_mds"]], dtype=float)
        pos = np.array(a["positions"], dtype=float)
        # Colour by the first true axis, marker size by the second: both grid directions stay visible.
        colour = pos[:, 0]
        size = 20 + 40 * (pos[:, 1] - pos[:, 1].min()) / max(np.ptp(pos[:, 1]), 1e-12) if pos.shape[1] > 1 else 30
        y = emb[:, 1] if emb.shape[1] > 1 else np.zeros(len(emb))
        sc = ax.scatter(emb[:, 0], y, c=colour, s=size, cmap="viridis", edgecolors="k", linewidths=0.3)
        if len(pos) <= 36:
            for i in range(len(pos)):
                ax.annotate(",".join(f"{v:g}" for v in pos[i][:3]), (emb[i, 0], y[i]), fontsize=6, alpha=0.7)
        ax.set_title(f"{a['run']['group']}\nseed {a['run']['seed']}", fontsize=8)
        ax.set_xticks([])
        ax.set_yticks([])
    fig.colorbar(sc, ax=axes.ravel().tolist(), fraction=0.02, label="true position, axis 0")
    for k in range(len(shown), rows * cols):
        axes[k // cols][k % cols].axis("off")
    figs.save(fig, "pe_mds", "MDS of each learned PE",
              "Classical MDS of the PE vectors (first block, last evaluation), each token labelled by its true "
              "position and coloured by its first coordinate (marker size: second coordinate).")


def plot_curves(figs, analyses, columns):
    metric = "accuracy" if columns and columns[0].endswith("_accuracy") else "mse"
    splits = [split_of(c) for c in columns]
    if not splits:
        return
    fig, axes = plt.subplots(1, len(splits), figsize=(4.2 * len(splits), 3.4), squeeze=False)
    groups = {}
    for a in analyses:
        groups.setdefault(a["run"]["group"], []).append(a)
    for ax, split in zip(axes[0], splits):
        for i, (group, members) in enumerate(sorted(groups.items())):
            for j, a in enumerate(sorted(members, key=lambda a: a["run"]["seed"])):
                pts = [(c["epoch"], c[metric]) for c in a["curves"] if c.get("split") == split and metric in c]
                if pts:
                    x, y = zip(*pts)
                    ax.plot(x, y, color=f"C{i % 10}", alpha=0.8, label=group if j == 0 else None)
        ax.set_title(split)
        ax.set_xlabel("epoch")
        ax.set_ylabel(metric)
        ax.grid(alpha=0.3)
    axes[0][0].legend(fontsize=7)
    figs.save(fig, "learning_curves", "Learning curves",
              f"{metric} on each split at each evaluation; one line per run, one colour per group.")


def table_html(summary, columns):
    probes = ["rsa_spearman", "procrustes_oracle_disparity", "decode_r2", "knn_overlap"]
    head = ["PE", "runs"] + [c.replace("_", " ") for c in columns] + [p.replace("_", " ") for p in probes]
    rows = []
    for r in summary:
        cells = [html.escape(r["group"]), r["runs"]]
        for c in columns + probes:
            m, s = number(r.get(c + "_mean")), number(r.get(c + "_sd"))
            pct = c.endswith("_accuracy")
            if math.isnan(m):
                cells.append("n/a")
            else:
                f = (lambda v: f"{100 * v:.1f}") if pct else (lambda v: f"{v:.3f}")
                cells.append(f(m) + ("" if math.isnan(s) or int(r["runs"]) < 2 else f" ± {f(s)}"))
        rows.append("<tr>" + "".join(f"<td>{c}</td>" for c in cells) + "</tr>")
    return ("<table><thead><tr>" + "".join(f"<th>{h}</th>" for h in head) + "</tr></thead><tbody>" +
            "".join(rows) + "</tbody></table>")


PAGE = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>loci report: {title}</title>
<style>
body {{ font-family: sans-serif; margin: 2em auto; max-width: 1200px; color: #222; }}
table {{ border-collapse: collapse; font-size: 0.85em; margin: 1em 0; }}
th, td {{ border: 1px solid #ccc; padding: 0.25em 0.5em; text-align: right; }}
th:first-child, td:first-child {{ text-align: left; }}
figure {{ margin: 2em 0; }} figure svg {{ max-width: 100%; height: auto; }}
figcaption {{ font-size: 0.85em; color: #555; }}
</style></head>
<body>
<h1>loci report</h1>
<p>{runs} runs from <code>{source}</code>, grouped by PE type and init scale; mean ± sd over seeds at the last
evaluation. Accuracies in %. Figures are also in <code>figures/</code> as SVG and PNG.</p>
{table}
{figures}
</body></html>
"""


def main(argv):
    if len(argv) != 3:
        fail("usage: loci_report.py ANALYSIS_DIR OUT_DIR")
    source, out = argv[1], argv[2]
    summary = read_csv(os.path.join(source, "summary.csv"))
    runs = read_csv(os.path.join(source, "runs.csv"))
    if not summary or not runs:
        fail(f"{source}: summary.csv holds no runs")
    analyses = load_analyses(runs)
    columns = task_columns(summary)
    os.makedirs(out, exist_ok=True)
    figs = Figures(out)
    metric = "accuracy" if columns and columns[0].endswith("_accuracy") else "MSE"
    plot_against_sigma(figs, summary, columns, "task_vs_sigma", f"{metric} against σ",
                       f"{metric} of each split at the last evaluation against the init scale of drawn PEs "
                       "(mean ± sd over seeds); dashed lines: PEs without an init scale.",
                       metric + (" (%)" if metric == "accuracy" else ""), 100.0 if metric == "accuracy" else 1.0)
    plot_against_sigma(figs, summary, ["rsa_spearman", "procrustes_oracle_disparity", "decode_r2"], "probes_vs_sigma",
                       "RSA, Procrustes and decoding against σ",
                       "RSA (Spearman between PE and true distances), Procrustes disparity to the oracle PE "
                       "(0 = the same shape) and cross-validated R² of the coordinates, averaged over blocks.",
                       "value")
    plot_similarity(figs, analyses)
    plot_mds(figs, analyses)
    plot_curves(figs, analyses, columns)
    body = "\n".join(
        f'<figure id="{name}"><h2>{html.escape(title)}</h2>{svg}<figcaption>{html.escape(caption)}</figcaption></figure>'
        for name, title, caption, svg in figs.items)
    page = PAGE.format(title=html.escape(os.path.basename(os.path.abspath(source))), runs=len(runs),
                       source=html.escape(os.path.abspath(source)), table=table_html(summary, columns), figures=body)
    target = os.path.join(out, "report.html")
    with open(target + ".tmp", "w") as f:
        f.write(page)
    os.replace(target + ".tmp", target)


if __name__ == "__main__":
    main(sys.argv)
