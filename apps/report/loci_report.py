#!/usr/bin/env python3
"""The figures and page of `loci report DIR`: reads what `loci analyze` wrote (summary.csv, runs.csv and each run's
analysis.json) and writes report.html (self-contained: figures inline as SVG) and figures/*.svg + *.png beside it.

Usage: loci_report.py ANALYSIS_DIR OUT_DIR. On a problem it prints one line on stderr and exits 1."""

import csv
import html
import json
import math
import textwrap
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from reading import reading_html  # noqa: E402  (beside this script, in the build tree and the install)
from statistics_tables import statistics_html  # noqa: E402


def fail(message):
    print(message, file=sys.stderr)
    sys.exit(1)


try:  # matplotlib and numpy: the setup script installs python3-matplotlib
    from figure_style import Figures, chance_line, pad_y_range, sigma_ticks, y_kind  # noqa: E402  (first: the backend)
    import matplotlib.pyplot as plt
    import matplotlib.ticker
    import numpy as np
except ImportError as e:
    fail(f"the report needs matplotlib and numpy for {sys.executable} ({e}); install python3-matplotlib")


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
                a = json.load(f)
        except (OSError, ValueError) as e:
            fail(f"{path}: cannot be read ({e}); run `loci analyze` again")
        # The summary's group, which adds the settings a sweep varies beside the PE (task, lr, ...) to the PE's own
        # label: one figure panel per group must not merge two tasks' runs of one PE.
        if r.get("group"):
            a["run"]["group"] = r["group"]
        out.append(a)
    return out


LST_CONDITIONS = ("accuracy_binary", "accuracy_ternary", "accuracy_quaternary")


def lst_grid_side(a):
    """N of an N x N Latin Square Task run, or None when the run is not on the LST. From what loci analyze recorded
    of the dataset (its generator; N x N tokens), else, for a dataset that could not be read, from the LST's own marks
    in the metrics: accuracy by relational class (Binary, Ternary, Quaternary) on a square number of tokens."""
    side = math.isqrt(int(a.get("tokens", 0)))
    generator = (a.get("dataset") or {}).get("generator")
    if generator is not None:
        return side if generator == "lst_grid" and side * side == a.get("tokens") else None
    marked = any(all(c in m for c in LST_CONDITIONS) for m in a.get("metrics", {}).values() if isinstance(m, dict))
    return side if marked and side * side == a.get("tokens") else None


def classes_of(a):
    """Number of classes of a classification run as loci analyze recorded it (task.classes, or the LST grid's N when
    that is 0: the trainer's own rule), else N of an LST grid the metrics show, or None when nothing says."""
    classes = (a.get("task") or {}).get("classes")
    if isinstance(classes, (int, float)) and classes >= 2:
        return int(classes)
    return lst_grid_side(a)


def class_count(analyses):
    """The runs' common number of classes, or None when any run does not say or they differ."""
    counts = {classes_of(a) for a in analyses}
    return counts.pop() if len(counts) == 1 and None not in counts else None


def task_columns(summary):
    """Accuracy columns of every split, e.g. human_accuracy, or for masked regression alone its MSE columns."""
    cols = [c[:-5] for c in summary[0].keys() if c.endswith("_mean")]
    acc = [c for c in cols if c.endswith("_accuracy")]
    return acc if acc else mse_columns(summary)


def mse_columns(summary):
    """MSE columns of every split. A plain split evaluated at the default mask ratio (test_mse) that equals one of
    its split@ratio columns in every row (test@0.5_mse) is the same number twice, and is left out."""
    cols = [c[:-5] for c in summary[0].keys() if c.endswith("_mean")]
    mse = [c for c in cols if c.endswith("_mse")]

    def repeats(c):
        return any(split_of(o).startswith(split_of(c) + "@") and
                   all(r[c + "_mean"] == r[o + "_mean"] for r in summary) for o in mse if o != c)
    return [c for c in mse if not repeats(c)]


def over_replicates(summary):
    """What a group's mean and sd run over: its seeds, and its datasets too where `loci analyze` pooled them
    (analyze.pool_datasets; summary.csv's datasets column counts a group's datasets)."""
    pooled = max((int(number(r.get("datasets"))) for r in summary if number(r.get("datasets")) > 1), default=1)
    return f"over seeds and {pooled} pooled datasets" if pooled > 1 else "over seeds"


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


def plot_against_sigma(figs, summary, columns, name, title, caption, ylabel, scale=1.0, chance=None,
                       chance_label="chance"):
    """One panel per column: drawn PEs against σ, fixed PEs as dash-dotted levels, chance (in the plotted unit) as a
    dashed level where given. `ylabel` is one label or a label per column; the caption gains a note on the
    dash-dotted levels only where some were drawn."""
    drawn, fixed = by_sigma(summary)
    if not drawn and not fixed:
        return
    fig, axes = plt.subplots(1, len(columns), figsize=(4.2 * len(columns), 3.4), squeeze=False)
    for ax, col in zip(axes[0], columns):
        shown = [] if chance is None else [chance]
        for label, rows in drawn.items():
            # A sweep of two tasks has groups without this column: leaving them out keeps the other task's line whole.
            rows = [r for r in rows if not math.isnan(number(r[col + "_mean"]))]
            if not rows:
                continue
            x = [number(r["sigma"]) for r in rows]
            y = [number(r[col + "_mean"]) * scale for r in rows]
            e = [0.0 if math.isnan(v) else v for v in (number(r[col + "_sd"]) * scale for r in rows)]
            ax.errorbar(x, y, yerr=e, marker="o", capsize=3, label=label)
            shown += [v - d for v, d in zip(y, e)] + [v + d for v, d in zip(y, e)]
        for i, r in enumerate(fixed):
            y = number(r[col + "_mean"]) * scale
            if not math.isnan(y):
                ax.axhline(y, linestyle="-.", color=f"C{(i + len(drawn)) % 10}", label=r["group"])
                shown.append(y)
        if chance is not None:
            chance_line(ax, chance, chance_label)
        ax.set_title(col.replace("_", " "))
        ax.set_xlabel("init scale σ")
        ax.set_ylabel(ylabel[col] if isinstance(ylabel, dict) else ylabel)
        sigmas = [number(r["sigma"]) for rows in drawn.values() for r in rows]
        if drawn and all(v > 0 for v in sigmas):
            ax.set_xscale("log")
            sigma_ticks(ax, sigmas)
        pad_y_range(ax, shown, y_kind(col))
        ax.grid(alpha=0.3)
    axes[0][0].legend(fontsize=7)
    fig.tight_layout()
    levels = [r["group"] for r in fixed if any(not math.isnan(number(r[c + "_mean"])) for c in columns)]
    if levels:
        caption += " Dash-dotted lines: PEs without an init scale (" + ", ".join(levels) + ")."
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


def position_order(a):
    """Token indices sorted by true position, axis 0 first: rows of a grid, strips of a network's square."""
    pos = a.get("positions") or []
    return sorted(range(len(pos)), key=lambda t: tuple(round(v, 9) for v in pos[t]))


def first_of_group(a, runs):
    """The legend label of a run: its group's name for the group's first run among `runs`, else None (one entry per
    group)."""
    first = next(b for b in runs if b["run"]["group"] == a["run"]["group"])
    return a["run"]["group"] if first is a else None


def spearman(x, y):
    """Spearman's rho with average ranks for ties; NaN when either side is constant or too short."""
    def ranks(v):
        order = sorted(range(len(v)), key=lambda i: v[i])
        r = [0.0] * len(v)
        i = 0
        while i < len(order):
            j = i
            while j + 1 < len(order) and v[order[j + 1]] == v[order[i]]:
                j += 1
            for k in range(i, j + 1):
                r[order[k]] = (i + j) / 2.0 + 1
            i = j + 1
        return r
    if len(x) < 3:
        return math.nan
    a, b = np.array(ranks(x)), np.array(ranks(y))
    if a.std() == 0 or b.std() == 0:
        return math.nan
    return float(np.corrcoef(a, b)[0, 1])


def plot_procrustes_vs_accuracy(figs, analyses):
    """The paper's headline figure: each drawn run's Procrustes disparity to the oracle (the 2d-fixed PE) against its
    accuracy, with Spearman's rho across runs; beside it the same for the displacement PE(t) - PE(0)."""
    drawn = [a for a in analyses if a["run"].get("drawn") and a.get("final")]
    split = "human" if any("human" in a["metrics"] for a in drawn) else None
    if split is None or len(drawn) < 3:
        return
    fig, axes = plt.subplots(1, 2, figsize=(8.4, 3.4), squeeze=False)
    groups = sorted({a["run"]["group"] for a in drawn})
    for ax, key, title in zip(axes[0], ["procrustes_oracle_disparity", "disp_procrustes_oracle_disparity"],
                              ["PE", "displacement PE(t) − PE(0)"]):
        xs, ys = [], []
        for a in drawn:
            x, y = a["final"].get(key), a["metrics"].get(split, {}).get("accuracy")
            if x is None or y is None:
                continue
            i = groups.index(a["run"]["group"])
            ax.scatter([x], [100 * y], color=f"C{i % 10}", s=22,
                       label=first_of_group(a, drawn))
            xs.append(x)
            ys.append(100 * y)
        rho = spearman(xs, ys)
        ax.set_title(f"{title}: ρ = {rho:.2f}" if math.isfinite(rho) else f"{title}: ρ n/a", fontsize=9)
        ax.set_xlabel("Procrustes disparity to the oracle")
        ax.set_ylabel(f"{split} accuracy (%)")
        pad_y_range(ax, ys, "accuracy")
        ax.grid(alpha=0.3)
    axes[0][0].legend(fontsize=7)
    fig.tight_layout()
    figs.save(fig, "procrustes_vs_accuracy", "Procrustes distance to the oracle against accuracy",
              "One point per run of a drawn PE (learned or random, every init scale and seed): its Procrustes disparity "
              "to the oracle PE at the last evaluation, of the PE and of its displacement from epoch 0, against its "
              f"{split} accuracy; ρ is Spearman's across runs (the paper: −0.98 across σ at epoch 4000).")


def plot_conditions(figs, analyses, chance=None, over="over seeds"):
    """Accuracy per relational class (binary / ternary / quaternary) of the human puzzles against sigma."""
    rows = []
    for a in analyses:
        m = a["metrics"].get("human", {})
        cond = {k[len("accuracy_"):]: v for k, v in m.items() if k.startswith("accuracy_") and v is not None}
        if cond and a["run"].get("drawn"):
            rows.append((a["run"]["sigma"], cond))
    if not rows:
        return
    names = sorted({c for _, cond in rows for c in cond}, key=lambda c: ["binary", "ternary", "quaternary"].index(c)
                   if c in ("binary", "ternary", "quaternary") else 9)
    fig, ax = plt.subplots(figsize=(4.8, 3.4))
    sigmas = sorted({s for s, _ in rows})
    shown = [] if chance is None else [chance]
    for i, c in enumerate(names):
        means = []
        for sg in sigmas:
            vals = [100 * cond[c] for s, cond in rows if s == sg and c in cond]
            means.append(sum(vals) / len(vals) if vals else math.nan)
        ax.plot(sigmas, means, marker="o", color=f"C{i}", label=c)
        shown += [m for m in means if math.isfinite(m)]
    if chance is not None:
        chance_line(ax, chance)
    ax.set_xscale("log")
    sigma_ticks(ax, sigmas)
    ax.set_xlabel("init scale σ")
    ax.set_ylabel("human accuracy (%)")
    pad_y_range(ax, shown, "accuracy")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7)
    fig.tight_layout()
    figs.save(fig, "accuracy_by_condition", "Accuracy per relational class against σ",
              "Accuracy (%) on the human puzzles of each relational class at the last evaluation, mean "
              f"{over}, for the drawn PEs." + chance_caption(chance))


def plot_attention(figs, analyses, runs):
    """The last evaluation's attention (first block, head 0, averaged over the attention split) of one learned and one
    reference (2d-fixed) run, and the cosine the analysis gives; only for runs that saved attention maps."""
    try:
        import h5py
    except ImportError:
        return
    with_maps = [a for a in one_per_group(analyses) if os.path.exists(os.path.join(a["run"]["folder"], "attention.h5"))]
    if len(with_maps) < 2:
        return
    shown = with_maps[:4]
    fig, axes = plt.subplots(1, len(shown), figsize=(3.1 * len(shown), 3.0), squeeze=False)
    for ax, a in zip(axes[0], shown):
        with h5py.File(os.path.join(a["run"]["folder"], "attention.h5"), "r") as f:
            m = f["block_0"][-1, 0]
        im = ax.imshow(m, cmap="magma", vmin=0)
        cos = number(next((r.get("attention_cosine") for r in runs if r.get("folder") == a["run"]["folder"]), ""))
        extra = f", cosine {cos:.2f}" if math.isfinite(cos) else ""
        ax.set_title(f"{a['run']['group']}\nseed {a['run']['seed']}{extra}", fontsize=8)
        ax.set_xticks([])
        ax.set_yticks([])
        fig.colorbar(im, ax=ax, fraction=0.046)
    fig.tight_layout()
    figs.save(fig, "attention_maps", "Attention maps",
              "Attention weights of the first block (head 0; query rows, key columns) at the last evaluation, averaged "
              "over the attention split, one run per group; runs.csv's attention_cosine is the cosine similarity of "
              "each run's maps with the 2d-fixed runs' (the paper's attention comparison).")


def plot_similarity(figs, analyses):
    shown = [a for a in one_per_group(analyses) if "final_similarity" in a]
    if not shown:
        return
    fc = shown[0].get("functional_connectivity", {}).get("matrix")
    first = 2 if fc else 1
    n = len(shown) + first
    cols = min(n, 4)
    rows = math.ceil(n / cols)
    fig, axes = plt.subplots(rows, cols, figsize=(3.1 * cols, 3.0 * rows), squeeze=False)
    order = position_order(shown[0])
    truth = np.array(shown[0]["true_distance"], dtype=float)[np.ix_(order, order)]
    im = axes[0][0].imshow(truth, cmap="viridis_r")
    axes[0][0].set_title("true distance")
    fig.colorbar(im, ax=axes[0][0], fraction=0.046)
    if fc:
        m = np.array([[math.nan if v is None else v for v in row] for row in fc], dtype=float)[np.ix_(order, order)]
        im = axes[0][1].imshow(m, cmap="viridis", vmin=-1, vmax=1)
        axes[0][1].set_title(f"functional connectivity\n({shown[0]['functional_connectivity']['split']} split)", fontsize=8)
        fig.colorbar(im, ax=axes[0][1], fraction=0.046)
    for k, a in enumerate(shown, start=first):
        ax = axes[k // cols][k % cols]
        sim = np.array([[math.nan if v is None else v for v in row] for row in a["final_similarity"]], dtype=float)
        sim = sim[np.ix_(order, order)]
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
              "beside the true distance matrix (and, for activity data, the functional connectivity of the training "
              "split: the correlation of every two tokens' activity), tokens ordered by their true position (axis 0, "
              "then 1, ...): a PE that learned the geometry shows the same block pattern (similar where the distance "
              "is small).")


def grid_layout(a):
    """(rows, columns, cell of each token) when the run's true positions are every cell of a 2D integer grid (the
    LST's cells, image patches), else None."""
    pos = np.array(a.get("positions") or [], dtype=float)
    if pos.ndim != 2 or pos.shape[1] != 2 or len(pos) < 4 or not np.allclose(pos, np.round(pos)):
        return None
    pos = np.round(pos).astype(int) - np.round(pos).astype(int).min(0)
    rows, cols = pos.max(0) + 1
    if rows * cols != len(pos) or len({tuple(p) for p in pos}) != len(pos):
        return None
    return rows, cols, pos


def plot_grid_similarity(figs, analyses):
    """ViT's figure of its learned pos_embed: for each token, its PE's similarity to every other token's, drawn at the
    tokens' places on the grid; one panel per run of a few groups."""
    shown = [a for a in one_per_group(analyses) if "final_similarity" in a and grid_layout(a)][:8]
    if not shown:
        return
    rows, cols, _ = grid_layout(shown[0])
    per_row = min(4, len(shown))
    lines = (len(shown) + per_row - 1) // per_row
    fig, axes = plt.subplots(lines, per_row, figsize=(3.2 * per_row, 3.6 * lines), squeeze=False)
    for ax in axes.flat[len(shown):]:
        ax.axis("off")
    for ax, a in zip(axes.flat, shown):
        r, c, pos = grid_layout(a)
        sim = np.array([[math.nan if v is None else v for v in row] for row in a["final_similarity"]], dtype=float)
        # A (rows x cols) mosaic of (rows x cols) maps, separated by one blank pixel.
        mosaic = np.full((r * (r + 1), c * (c + 1)), np.nan)
        for t, (pr, pc) in enumerate(pos):
            tile = np.full((r, c), np.nan)
            for u, (qr, qc) in enumerate(pos):
                tile[qr, qc] = sim[t, u]
            mosaic[pr * (r + 1):pr * (r + 1) + r, pc * (c + 1):pc * (c + 1) + c] = tile
        im = ax.imshow(mosaic, cmap="viridis", vmin=-1, vmax=1)
        ax.set_title(textwrap.fill(f"{a['run']['group']}, seed {a['run']['seed']}", 40), fontsize=7)
        ax.set_xticks([])
        ax.set_yticks([])
    fig.colorbar(im, ax=axes.ravel().tolist(), fraction=0.025)
    figs.save(fig, "grid_similarity", "Each token's PE similarity, laid out on the grid",
              f"For each of the {rows}x{cols} grid's tokens, one small map at its own place: the cosine similarity "
              "(centred over tokens; first block, last evaluation) of its PE with every other token's PE, each drawn "
              "at that token's place. A PE that learned the grid shows each map bright around its own place "
              "(as ViT's learned pos_embed does); one run per group, the first eight groups.")


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
        if len(pos) <= 36 and np.all(pos == np.round(pos)):  # a small grid: its cells' labels stay legible
            for i in range(len(pos)):
                ax.annotate(",".join(f"{v:g}" for v in pos[i][:3]), (emb[i, 0], y[i]), fontsize=8, alpha=0.8)
        ax.set_title(f"{a['run']['group']}\nseed {a['run']['seed']}", fontsize=10)
        ax.set_xlabel("MDS 1")
        ax.set_ylabel("MDS 2")
        ax.set_xticks([])
        ax.set_yticks([])
    fig.colorbar(sc, ax=axes.ravel().tolist(), fraction=0.02, label="true position, axis 0")
    for k in range(len(shown), rows * cols):
        axes[k // cols][k % cols].axis("off")
    figs.save(fig, "pe_mds", "MDS of each learned PE",
              "Classical MDS of the PE vectors (first block, last evaluation), each token coloured by its first "
              "true coordinate (marker size: second coordinate) and, on a small grid, labelled by its position." +
              same_draw_note(shown))


def shape_of(embedding):
    """The embedding's pairwise distances over the largest: the same for embeddings that differ by a scale, a
    rotation or a reflection (MDS fixes each axis's sign arbitrarily)."""
    e = np.nan_to_num(np.asarray(embedding, dtype=float))
    d = np.sqrt(((e[:, None, :] - e[None, :, :]) ** 2).sum(-1))
    top = d.max()
    return d / top if top > 0 else d


def rescaled_twins(shown):
    """Pairs of runs of drawn PEs (analyses), same seed, whose final MDS embeddings are one shape rescaled: their
    shapes differ by under 1% of the largest distance, which the eye cannot tell apart (2 epochs of the quickstart
    leave them 0.07% apart)."""
    drawn = [a for a in shown if a["run"]["drawn"] and "final_mds" in a]
    pairs = []
    for i, a in enumerate(drawn):
        for b in drawn[i + 1:]:
            if a["run"]["seed"] == b["run"]["seed"] and a["run"]["sigma"] != b["run"]["sigma"]:
                sa, sb = shape_of(a["final_mds"]), shape_of(b["final_mds"])
                if sa.shape == sb.shape and np.abs(sa - sb).max() < 0.01:
                    pairs.append((a, b))
    return pairs


def same_draw_note(shown):
    """A caption's note where runs of different σ show one shape: expected at init with one seed."""
    pairs = rescaled_twins(shown)
    if not pairs:
        return ""
    named = "; ".join(f"{a['run']['group']} and {b['run']['group']}" for a, b in pairs)
    inits = sorted({a["run"]["init"].split("(")[0] for pair in pairs for a in pair})
    return (f" Here {named} coincide: with one seed, the {'/'.join(inits)} inits of different σ are the same draw "
            "rescaled, so scale-free views (MDS, RSA, Procrustes disparity) coincide until training moves the PE.")


def plot_curves(figs, analyses, columns, chance=None):
    """Accuracy (in %, with chance where known) or MSE of each split at each evaluation, one line per run."""
    metric = "accuracy" if columns and columns[0].endswith("_accuracy") else "mse"
    scale = 100.0 if metric == "accuracy" else 1.0
    splits = [split_of(c) for c in columns]
    if not splits:
        return
    fig, axes = plt.subplots(1, len(splits), figsize=(4.2 * len(splits), 3.4), squeeze=False)
    groups = {}
    for a in analyses:
        groups.setdefault(a["run"]["group"], []).append(a)
    for ax, split in zip(axes[0], splits):
        shown = [] if chance is None else [chance]
        for i, (group, members) in enumerate(sorted(groups.items())):
            for j, a in enumerate(sorted(members, key=lambda a: a["run"]["seed"])):
                pts = [(c["epoch"], c[metric] * scale) for c in a["curves"] if c.get("split") == split and metric in c]
                if pts:
                    x, y = zip(*pts)
                    ax.plot(x, y, color=f"C{i % 10}", alpha=0.8, label=group if j == 0 else None)
                    shown += y
        if chance is not None:
            chance_line(ax, chance)
        ax.set_title(split)
        ax.set_xlabel("epoch")
        ax.xaxis.set_major_locator(matplotlib.ticker.MaxNLocator(integer=True))
        ax.set_ylabel("accuracy (%)" if metric == "accuracy" else "MSE")
        pad_y_range(ax, shown, y_kind(metric))
        ax.grid(alpha=0.3)
    axes[0][0].legend(fontsize=7)
    fig.tight_layout()
    figs.save(fig, "learning_curves", "Learning curves",
              f"{'accuracy (%)' if metric == 'accuracy' else 'MSE'} on each split at each evaluation; one line per "
              "run, one colour per group." + chance_caption(chance))


def plot_robustness(figs, analyses, chance=None):
    """The paper's robustness test: accuracy (or MSE) against the sd of Gaussian noise added to the token
    embeddings at test time, one line per run, one colour per group. Drawn only for runs that wrote robustness.csv."""
    rows = [(a, r) for a in analyses for r in a.get("robustness", [])]
    if not rows:
        return
    accuracy = any(r.get("accuracy") is not None for _, r in rows)
    metric, scale = ("accuracy", 100.0) if accuracy else ("mse", 1.0)
    splits = sorted({r["split"] for _, r in rows}, key=lambda s: (s != "human", s))
    fig, axes = plt.subplots(1, len(splits), figsize=(4.2 * len(splits), 3.4), squeeze=False)
    groups = sorted({a["run"]["group"] for a, _ in rows})
    for ax, split in zip(axes[0], splits):
        shown = [] if chance is None or not accuracy else [chance]
        for a in analyses:
            pts = sorted((r["noise_std"], r[metric] * scale) for r in a.get("robustness", [])
                         if r["split"] == split and r.get(metric) is not None)
            if pts:
                x, y = zip(*pts)
                i = groups.index(a["run"]["group"])
                ax.plot(x, y, marker="o", color=f"C{i % 10}", alpha=0.8, label=first_of_group(a, analyses))
                shown += y
        if chance is not None and accuracy:
            chance_line(ax, chance)
        ax.set_title(split)
        ax.set_xlabel("sd of the noise on the token embeddings")
        ax.set_ylabel("accuracy (%)" if accuracy else "MSE")
        pad_y_range(ax, shown, y_kind(metric))
        ax.grid(alpha=0.3)
    axes[0][0].legend(fontsize=7)
    fig.tight_layout()
    figs.save(fig, "robustness", "Robustness to noise on the token embeddings",
              f"{'accuracy (%)' if accuracy else 'MSE'} of each split when Gaussian noise of the given sd is added to "
              "every token embedding at test time (train.robustness_noise; the paper's robustness analysis), one line "
              "per run." + (chance_caption(chance) if accuracy else ""))


def plot_probes_over_training(figs, analyses):
    """RSA of the raw PE and of its displacement from epoch 0 at each evaluation: the displacement shows what
    training wrote into a PE that keeps most of its random draw."""
    have = [a for a in analyses if any("displacement" in e for e in a.get("evaluations", []))]
    if not have:
        return
    panels = [("mean", "RSA of the PE"), ("displacement", "RSA of PE(t) − PE(0)")]
    if any("attention_term" in e for a in have for e in a["evaluations"]):
        panels.append(("attention_term", "RSA of the position term P Wq Wkᵀ Pᵀ"))
    fig, axes = plt.subplots(1, len(panels), figsize=(4.2 * len(panels), 3.4), squeeze=False)
    groups = sorted({a["run"]["group"] for a in have})
    for ax, (key, title) in zip(axes[0], panels):
        shown = []
        for a in have:
            pts = [(e["epoch"], e[key]["rsa_spearman"]) for e in a["evaluations"]
                   if key in e and e[key].get("rsa_spearman") is not None]
            if pts:
                x, y = zip(*pts)
                i = groups.index(a["run"]["group"])
                ax.plot(x, y, color=f"C{i % 10}", alpha=0.8, label=first_of_group(a, have))
                shown += y
        ax.axhline(0, color="0.6", linewidth=0.8)
        ax.set_title(title, fontsize=9)
        ax.set_xlabel("epoch")
        ax.set_ylabel("Spearman with the true distances")
        ax.xaxis.set_major_locator(matplotlib.ticker.MaxNLocator(integer=True))
        pad_y_range(ax, shown, y_kind("rsa_spearman"))
        ax.grid(alpha=0.3)
    axes[0][0].legend(fontsize=7)
    fig.tight_layout()
    figs.save(fig, "probes_over_training", "RSA over training: the PE, its displacement and its attention term",
              "RSA (Spearman between distances and true distances, mean over blocks) at each evaluation: of the PE "
              "itself (epoch 0 = the PE at initialisation), of the displacement PE(t) − PE(0) (what training wrote "
              "into the PE)" + (", and of each block's position-position attention term (the PE through the query "
              "and key weights, rows centred: where a grid learned in Wq and Wk rather than in the PE shows)"
              if len(panels) == 3 else "") + ". 0 is no relation; a curve's rise over its own epoch-0 value is what "
              "training did, and its permutation p is in the reading above.")


def chance_caption(chance):
    return "" if chance is None else f" Dashed grey line: chance ({chance:.3g}%, one class in {100 / chance:.0f})."


def table_html(summary, columns):
    probes = ["rsa_spearman", "procrustes_oracle_disparity", "decode_r2", "knn_overlap"]
    if any(number(r.get("rsa_fc_spearman_mean")) == number(r.get("rsa_fc_spearman_mean")) for r in summary):
        probes = ["rsa_spearman", "rsa_hops_spearman", "rsa_fc_spearman", "disp_rsa_spearman",
                  "procrustes_oracle_disparity", "decode_r2", "modularity"]
    names = {"procrustes_oracle_disparity": "Procrustes disparity (scale-free)"}
    head = ["PE", "runs"] + [c.replace("_", " ") for c in columns] + [names.get(p, p.replace("_", " ")) for p in probes]
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


def last_epoch(analyses):
    epochs = [c["epoch"] for a in analyses for c in a.get("curves", []) if isinstance(c.get("epoch"), (int, float))]
    return max(epochs) if epochs else None


def intro_html(analyses, columns, classes):
    """The page's opening: what the reader is looking at, and what the paper (arXiv 2406.08272) found for such runs."""
    accuracy = bool(columns) and columns[0].endswith("_accuracy")
    side = lst_grid_side(analyses[0]) if analyses else None
    epoch = last_epoch(analyses)
    if accuracy:
        task = f"the {side}×{side} Latin Square Task" if side else "a classification task"
        chance = f" (chance: {100 / classes:.3g}%, {classes} classes)" if classes else ""
        what = (f"This page compares transformers trained on {task} with different positional encodings (PEs): "
                f"their accuracy{chance}, and how closely each PE's geometry matches the tokens' true positions.")
        found = ("The paper (arXiv 2406.08272) found that learned PEs initialised with a small init scale "
                 "(σ ≈ 0.1–0.2) generalise to the 108 human puzzles (95.6% at σ = 0.2 against 37.7% at σ = 2.0, "
                 "after 4000 epochs) and come to mirror the 2D grid, while a large σ memorises the training puzzles."
                 if side == 4 else
                 "The paper (arXiv 2406.08272) found that learned PEs initialised with a small init scale "
                 "(σ ≈ 0.1–0.2) generalise and come to mirror the tokens' true layout, while a large σ memorises "
                 "the training set.")
    else:
        what = ("This page compares transformers trained on masked-token regression with different positional "
                "encodings (PEs): their held-out MSE and R² against each token's own training mean (0 = no better "
                "than that trivial predictor), and how closely each PE's geometry matches the tokens' true "
                "positions and the functional connectivity of the training data.")
        found = ("The paper's claim (arXiv 2406.08272): learned PEs initialised with a small init scale "
                 "(σ ≈ 0.1–0.2) reach a lower held-out MSE and come to mirror the true positions, where a large σ "
                 "does not.")
    stop = f" These runs' last evaluation is at epoch {epoch:g}." if epoch is not None else ""
    return f'<p class="lead">{html.escape(what)} {html.escape(found)}{html.escape(stop)}</p>'


PAGE = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>loci report: {title}</title>
<style>
body {{ font-family: sans-serif; margin: 2em auto; max-width: 1200px; color: #222; }}
table {{ border-collapse: collapse; font-size: 0.85em; margin: 1em 0; }}
th, td {{ border: 1px solid #ccc; padding: 0.25em 0.5em; text-align: right; }}
th:first-child, td:first-child {{ text-align: left; }}
figure {{ margin: 2em 0; }} figure svg {{ max-width: 100%; height: auto; }}
figcaption {{ font-size: 0.85em; color: #555; }}
p.lead {{ font-size: 1.05em; }}
p.reading {{ margin: 0.3em 0; }}
</style></head>
<body>
<h1>loci report</h1>
{intro}
<h2>What these runs found</h2>
{reading}
<p>{runs} runs in <code>{run_folder}</code> (analysed into <code>{source}</code>), grouped by PE type and init scale;
mean ± sd {over} at the last evaluation.{units} Figures are also in <code>figures/</code> as SVG and PNG.</p>
{table}
{statistics}
{figures}
</body></html>
"""


class Inputs:
    """What the page is drawn from: the analysis folder's tables, each run's analysis.json, and what kind of task."""

    def __init__(self, source):
        self.source = source
        self.summary = read_csv(os.path.join(source, "summary.csv"))
        self.runs = read_csv(os.path.join(source, "runs.csv"))
        if not self.summary or not self.runs:
            fail(f"{source}: summary.csv holds no runs")
        self.analyses = load_analyses(self.runs)
        self.columns = task_columns(self.summary)
        self.accuracy = bool(self.columns) and self.columns[0].endswith("_accuracy")
        self.classes = class_count(self.analyses) if self.accuracy else None
        self.chance = 100.0 / self.classes if self.classes else None
        self.metric = "accuracy" if self.accuracy else "MSE"


def draw_task_against_sigma(figs, d):
    plot_against_sigma(figs, d.summary, d.columns, "task_vs_sigma", f"{d.metric} against σ",
                       f"{d.metric}{' (%)' if d.accuracy else ''} of each split at the last evaluation against the "
                       f"init scale of drawn PEs (mean ± sd {over_replicates(d.summary)})." + chance_caption(d.chance),
                       "accuracy (%)" if d.accuracy else d.metric, 100.0 if d.accuracy else 1.0, d.chance)
    if d.accuracy:
        # A sweep that also trains masked regression (Experiment 4): that task's MSE against σ too.
        mse = [c for c in mse_columns(d.summary) if any(not math.isnan(number(r[c + "_mean"])) for r in d.summary)]
        if mse:
            plot_against_sigma(figs, d.summary, mse, "mse_vs_sigma", "MSE against σ",
                               "Held-out and training MSE of the groups trained on masked regression, at the last "
                               f"evaluation, against the init scale of drawn PEs (mean ± sd {over_replicates(d.summary)}).",
                               "MSE")
        return
    r2 = [split_of(c) + "_r2_token_mean" for c in d.columns if split_of(c) + "_r2_token_mean_mean" in d.summary[0]]
    if r2:
        plot_against_sigma(figs, d.summary, r2, "r2_vs_sigma", "R² against σ",
                           "R² of the masked tokens against each token's own mean over the training split, per "
                           "split and mask ratio (split@ratio; a plain split name is model.mask_ratio_eval), at the "
                           f"last evaluation, mean ± sd {over_replicates(d.summary)}; dashed line: that trivial predictor "
                           "(R² = 0).",
                           "R²", 1.0, 0.0, "node mean")


# Each probe panel: its y label and what its caption says of it.
PROBE_PANELS = {
    "rsa_spearman": ("Spearman ρ (PE vs true distances)",
                     "rsa spearman: Spearman correlation between the PE's and the true distances between tokens"),
    "rsa_fc_spearman": ("Spearman ρ (PE vs 1 − FC)",
                        "rsa fc spearman: the same against 1 − the functional connectivity of the training split"),
    "disp_rsa_spearman": ("Spearman ρ (PE(t) − PE(0))",
                          "disp rsa spearman: the same for the displacement PE(t) − PE(0), what training wrote into "
                          "the PE"),
    "procrustes_oracle_disparity": ("Procrustes disparity (0 = same shape)",
                                    "procrustes oracle disparity: the scale-free Procrustes disparity to the oracle "
                                    "PE (sinusoids of the true positions), 0 for the same shape up to rotation and "
                                    "scale, 1 for none in common (not the raw residual, which also measures size)"),
    "decode_r2": ("R² of decoded coordinates",
                  "decode r2: cross-validated R² of the true coordinates decoded linearly from the PE"),
}


def plot_displacement_account(figs, analyses):
    """The displacement account (issue 53): each moved PE's RSA against the RSA its displacement predicts on a fresh
    draw of the initial PE's norm, and against the displacement's size; where the points leave the diagonal the
    draw and what training wrote are not independent (decay shrinking the draw is one way)."""
    moved = [a for a in analyses if a.get("final") and a["final"].get("disp_predicted_rsa") is not None
             and a["final"].get("rsa_spearman") is not None]
    if len(moved) < 2:
        return
    fig, axes = plt.subplots(1, 2, figsize=(8.4, 3.4), squeeze=False)
    groups = sorted({a["run"]["group"] for a in moved})
    lo, hi = 0.0, 0.0
    for a in moved:
        f = a["final"]
        i = groups.index(a["run"]["group"])
        axes[0][0].scatter([f["disp_predicted_rsa"]], [f["rsa_spearman"]], color=f"C{i % 10}", s=22,
                           label=first_of_group(a, moved))
        axes[0][1].scatter([f["disp_norm_ratio"]], [f["rsa_spearman"]], color=f"C{i % 10}", s=22)
        lo = min(lo, f["disp_predicted_rsa"], f["rsa_spearman"])
        hi = max(hi, f["disp_predicted_rsa"], f["rsa_spearman"])
    axes[0][0].plot([lo - 0.05, hi + 0.05], [lo - 0.05, hi + 0.05], "k--", lw=0.8)
    axes[0][0].set_xlabel("RSA predicted: displacement + a fresh draw")
    axes[0][0].set_ylabel("RSA of the trained PE")
    axes[0][0].legend(fontsize=7)
    axes[0][1].set_xscale("log")
    axes[0][1].set_xlabel("‖PE(t) − PE(0)‖ / ‖PE(0)‖ (log scale)")
    axes[0][1].set_ylabel("RSA of the trained PE")
    for ax in axes[0]:
        ax.grid(alpha=0.3)
    fig.tight_layout()
    figs.save(fig, "displacement_account", "The displacement account: what training wrote, seen through the draw",
              "One point per run of a PE that moved, at the last evaluation, each the mean over its blocks. Left: "
              "the trained PE's RSA with the true distances against the RSA predicted by adding its displacement "
              "PE(t) − PE(0) to independent Gaussian draws of PE(0)'s norm (20 draws; dashed: prediction = "
              "observation). Right: the same RSA against the displacement's size relative to the draw. Points on "
              "the diagonal: the geometry is what the displacement carries, diluted by the draw; points above it: "
              "training did more than add to the draw (analysis.json disp_kept_draw says how much of the draw was "
              "kept).")


AUTHORS_EXP1 = os.path.join(os.path.dirname(os.path.abspath(__file__)), "authors_exp1.csv")


def at_authors_settings(group, runs):
    """Whether a group's runs trained at the authors' lr 1e-4 without weight decay, as far as runs.csv's varying
    settings tell (a setting that does not vary is not in runs.csv, and is then taken as the config's)."""
    for r in runs:
        if r.get("group") != group:
            continue
        lr, wd = r.get("train.lr", ""), r.get("train.weight_decay", "")
        if (lr and abs(number(lr) - 1e-4) > 1e-12) or (wd and number(wd) != 0):
            return False
    return True


def authors_exp1(pe_type, sigma, split):
    """The authors' released accuracy for a row (2d-fixed, or learned at sigma), per epoch: {epoch: (mean, ci_low,
    ci_high)}; empty where they released none (authors_exp1.csv, from bench/authors_reference.py)."""
    if not os.path.exists(AUTHORS_EXP1):
        return {}
    out = {}
    for r in read_csv(AUTHORS_EXP1):
        same = r["pe_type"] == pe_type and r["split"] == split and (
            pe_type != "learned" or (r["sigma"] and not math.isnan(sigma) and abs(number(r["sigma"]) - sigma) < 1e-6))
        if same:
            out[int(r["epoch"])] = (number(r["mean"]), number(r["ci_low"]), number(r["ci_high"]))
    return out


def draw_table_against_authors(figs, d):
    """Experiment 1's table as a figure (issue 54): every group's accuracy on each LST split with its 95% interval,
    one row per PE, and the authors' released values (their runs on their puzzles) marked on the rows they
    released: 2d-fixed and the learned PE at their init scales."""
    splits = [s for s in ("human", "test", "train") if d.summary and s + "_accuracy_mean" in d.summary[0]]
    if "human" not in splits or len(d.summary) < 2:
        return
    rows = d.summary
    fig, axes = plt.subplots(1, len(splits), figsize=(4.0 * len(splits), 0.42 * len(rows) + 1.6), squeeze=False,
                             sharey=True)
    labelled = {}
    for ax, split in zip(axes[0], splits):
        for i, r in enumerate(rows):
            m = 100 * number(r[split + "_accuracy_mean"])
            lo, hi = 100 * number(r[split + "_accuracy_ci_low"]), 100 * number(r[split + "_accuracy_ci_high"])
            if math.isnan(m):
                continue
            err = [[m - lo if not math.isnan(lo) else 0], [hi - m if not math.isnan(hi) else 0]]
            ax.errorbar([m], [i], xerr=err, fmt="o", color="C0", capsize=3)
            for epoch, marker in ((200, "D"), (4000, "s")):
                same = at_authors_settings(r["group"], d.runs)
                ref = authors_exp1(r["pe_type"], number(r["sigma"]), split).get(epoch) if same else None
                if ref:
                    ax.errorbar([ref[0]], [i + 0.22], xerr=[[ref[0] - ref[1]], [ref[2] - ref[0]]], fmt=marker,
                                color="C3" if epoch == 200 else "C2", capsize=2, markersize=4,
                                label=f"authors, epoch {epoch}" if not labelled.get(epoch) else None)
                    labelled[epoch] = True
        if d.chance is not None:
            ax.axvline(d.chance, linestyle="--", color="gray", lw=0.8)
        ax.set_title(f"{split} puzzles" if split == "human" else f"{split} split")
        ax.set_xlabel("accuracy (%)")
        ax.grid(alpha=0.3, axis="x")
    axes[0][0].set_yticks(range(len(rows)))
    axes[0][0].set_yticklabels([r["group"] for r in rows], fontsize=7)
    axes[0][0].invert_yaxis()
    marked_rows = [r["group"] for r in rows if authors_exp1(r["pe_type"], number(r["sigma"]), "human") and
                   at_authors_settings(r["group"], d.runs)]
    if marked_rows:
        axes[0][0].legend(fontsize=7, loc="lower left")
    fig.tight_layout()
    figs.save(fig, "table_vs_authors", "Accuracy per PE, beside the authors' released runs",
              "Each group's accuracy at its last evaluation (mean over its runs, with the 95% t interval of the mean; "
              "dashed: chance). Where the authors released curves for the same PE (2d-fixed, and the learned PE at "
              "their init scales 0.1 to 2.0), their mean and 95% interval over 15 seeds at epoch 200 (diamond) and "
              "4000 (square) are marked just below the row, on rows trained at their lr 1e-4 without decay: their runs "
              "on their own 9,000 puzzles in fp32, which these runs match only where they used the same data." +
              (" Marked: " + ", ".join(marked_rows) + "." if marked_rows else " None of these rows was released."))


def draw_probes_against_sigma(figs, d):
    probe_cols = ["rsa_spearman", "procrustes_oracle_disparity", "decode_r2"]
    if any(number(r.get("rsa_fc_spearman_mean")) == number(r.get("rsa_fc_spearman_mean")) for r in d.summary):
        probe_cols = ["rsa_spearman", "rsa_fc_spearman", "disp_rsa_spearman", "decode_r2"]
    negative_r2 = any(number(r.get("decode_r2_mean")) < 0 for r in d.summary)
    caption = ("; ".join(PROBE_PANELS[c][1] for c in probe_cols) + "; each the mean over blocks at the last "
               f"evaluation, mean ± sd {over_replicates(d.summary)}." +
               (" A negative R² means the decoder predicts held-out tokens' coordinates worse than their mean does: "
                "no position can be read from the PE linearly." if negative_r2 else "") +
               " Each y axis spans at least 0.2 (RSA, R²) or 0.1 (disparity), so that differences in the last "
               "digits do not look like a trend." + same_draw_note(one_per_group(d.analyses)))
    plot_against_sigma(figs, d.summary, probe_cols, "probes_vs_sigma", "RSA, Procrustes and decoding against σ",
                       caption, {c: PROBE_PANELS[c][0] for c in probe_cols})


def registered_outputs(analyses):
    """Every output of the probes registered when the runs were analysed (loci's own and any extension's), in
    registration order, as (probe, output); analysis.json lists them as 'name@version:out1,out2'."""
    seen = []
    for a in analyses:
        for entry in a.get("options", {}).get("probes", []):
            name, _, outputs = entry.partition(":")
            for out in outputs.split(","):
                if out and (name, out) not in seen:
                    seen.append((name, out))
    return seen


def draw_registered_probes(figs, d):
    """A panel for each registered probe's output that no other figure draws (an extension's probe among them), so
    every probe in analysis.json is on the page; the norm-matched controls are the reading's, not a figure's."""
    shown = [(name, out) for name, out in registered_outputs(d.analyses)
             if out not in PROBE_PANELS and not out.startswith("control_") and out + "_mean" in d.summary[0]
             and any(number(r[out + "_mean"]) == number(r[out + "_mean"]) for r in d.summary)]
    if not shown:
        return
    plot_against_sigma(figs, d.summary, [out for _, out in shown], "registered_probes_vs_sigma",
                       "Registered probes against σ",
                       "Every other probe registered when the runs were analysed (probe/registry.hpp; an extension's "
                       "too), one panel per output: " + ", ".join(f"{out.replace('_', ' ')} (probe {name})"
                                                                   for name, out in shown) +
                       f"; each the mean over the PE's blocks at the last evaluation, mean ± sd "
                       f"{over_replicates(d.summary)}.",
                       {out: out.replace("_", " ") for _, out in shown})


INTERVENTION_COLUMN = re.compile(r"^(?P<split>.+)_(?P<metric>accuracy|mse)_change_(?P<name>[a-z0-9_]+?)_mean$")


def draw_interventions(figs, d):
    """`loci intervene`'s changes per intervention (whole model), one bar per group with its 95% interval over the
    group's runs, on one split (human puzzles, else test, else the first scored)."""
    found = {}
    for col in d.summary[0]:
        m = INTERVENTION_COLUMN.match(col)
        if m and not re.search(r"_block\d+$", m["name"]):
            found.setdefault(m["split"], []).append((m["name"], m["metric"], col[:-len("_mean")]))
    if not found:
        return
    split = next((s for s in ("human", "test") if s in found), sorted(found)[0])
    entries = found[split]
    rows = [r for r in d.summary if any(number(r[c + "_mean"]) == number(r[c + "_mean"]) for _, _, c in entries)][:8]
    if not rows:
        return
    metric = entries[0][1]
    scale = 100.0 if metric == "accuracy" else 1.0
    fig, ax = plt.subplots(figsize=(max(5.0, 0.9 * len(entries) + 2), 3.6))
    width = 0.8 / len(rows)
    shown = [0.0]
    for k, r in enumerate(rows):
        x = [i + (k - (len(rows) - 1) / 2) * width for i in range(len(entries))]
        y = [number(r[c + "_mean"]) * scale for _, _, c in entries]
        low = [number(r.get(c + "_ci_low")) * scale for _, _, c in entries]
        high = [number(r.get(c + "_ci_high")) * scale for _, _, c in entries]
        err = [[max(0.0, v - lo) if lo == lo else 0.0 for v, lo in zip(y, low)],
               [max(0.0, hi - v) if hi == hi else 0.0 for v, hi in zip(y, high)]]
        ax.bar(x, y, width, yerr=err, capsize=2, label=r["group"])
        shown += [v for v in y if v == v]
    ax.axhline(0, color="black", linewidth=0.8)
    ax.set_xticks(range(len(entries)))
    ax.set_xticklabels([n.replace("_", " ") for n, _, _ in entries], rotation=30, ha="right", fontsize=8)
    ax.set_ylabel(f"change in {split} {'accuracy (points)' if metric == 'accuracy' else 'MSE'}")
    pad_y_range(ax, shown, "change")
    ax.grid(alpha=0.3, axis="y")
    ax.legend(fontsize=7)
    fig.tight_layout()
    figs.save(fig, "interventions", "Does the model use its PE's geometry?",
              f"The change of {split} {metric} when the trained PE is replaced (loci intervene), against the unchanged "
              "model, mean over each group's runs (and over an intervention's variants) with its 95% interval: init = "
              "the epoch-0 draw, displacement = PE − PE(0), permute random = rows shuffled among the tokens, permute "
              "symmetry = rows relabelled by a symmetry of the true positions, permute matched = the same tokens "
              "moved at random, the symmetry's fixed tokens kept (its control), zero, rescale (0.5 and 2 times the "
              "norm), oracle = the sinusoids of the true positions. A model that reads its PE's geometry is barely "
              "hurt by a symmetry and badly by its matched permutations; one that reads a lookup table of its draw is "
              "hurt by both alike." + ("" if metric == "accuracy" else " For MSE, up is worse."))


def draw_runs(figs, d):
    plot_similarity(figs, d.analyses)
    plot_grid_similarity(figs, d.analyses)
    plot_mds(figs, d.analyses)
    plot_curves(figs, d.analyses, d.columns, d.chance)
    plot_probes_over_training(figs, d.analyses)
    plot_procrustes_vs_accuracy(figs, d.analyses)
    plot_displacement_account(figs, d.analyses)
    plot_conditions(figs, d.analyses, d.chance, over_replicates(d.summary))
    plot_attention(figs, d.analyses, d.runs)
    plot_robustness(figs, d.analyses, d.chance)


def write_page(out, figs, d):
    body = "\n".join(
        f'<figure id="{name}"><h2>{html.escape(title)}</h2>{svg}<figcaption>{html.escape(caption)}</figcaption></figure>'
        for name, title, caption, svg in figs.items)
    folders = [r["folder"] for r in d.runs if r.get("folder")]
    run_folder = os.path.commonpath([os.path.dirname(os.path.abspath(f)) for f in folders]) if folders else d.source
    page = PAGE.format(title=html.escape(os.path.basename(os.path.abspath(d.source))), runs=len(d.runs),
                       run_folder=html.escape(run_folder), source=html.escape(os.path.abspath(d.source)), intro=intro_html(d.analyses, d.columns, d.classes),
                       reading=reading_html(d.analyses, d.columns, d.chance),
                       units=" Accuracies in %." if d.accuracy else "", over=over_replicates(d.summary),
                       table=table_html(d.summary, d.columns),
                       statistics=statistics_html(d.source), figures=body)
    target = os.path.join(out, "report.html")
    with open(target + ".tmp", "w") as f:
        f.write(page)
    os.replace(target + ".tmp", target)


def main(argv):
    if len(argv) != 3:
        fail("usage: loci_report.py ANALYSIS_DIR OUT_DIR")
    source, out = argv[1], argv[2]
    inputs = Inputs(source)
    os.makedirs(out, exist_ok=True)
    figs = Figures(out)
    draw_task_against_sigma(figs, inputs)
    draw_table_against_authors(figs, inputs)
    draw_probes_against_sigma(figs, inputs)
    draw_registered_probes(figs, inputs)
    draw_interventions(figs, inputs)
    draw_runs(figs, inputs)
    write_page(out, figs, inputs)


if __name__ == "__main__":
    main(sys.argv)
