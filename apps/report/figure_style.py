"""How the report's figures look and are saved: matplotlib's settings for byte-identical SVGs, the Figures store
(SVG and PNG under figures/, the SVG text for the page), and the axis rules every figure shares (y ranges of at least
a minimum span, the chance line, sigma ticks). Imported by loci_report.py, beside it."""

import io
import math
import os

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402  (after the backend is chosen)
import matplotlib.ticker  # noqa: E402

# Same bytes for the same inputs: no dates or random ids in the SVGs.
matplotlib.rcParams["svg.hashsalt"] = "loci"
matplotlib.rcParams["svg.fonttype"] = "path"
matplotlib.rcParams["figure.dpi"] = 100
matplotlib.rcParams["font.size"] = 9
# Tick labels are plain numbers: never an offset ("1e-5+7.718e-1") or a shared exponent; Figures.save also sets
# every axis's formatter, colour bars included.
matplotlib.rcParams["axes.formatter.useoffset"] = False


class Figures:
    """Saves each figure as SVG and PNG under out/figures and keeps the SVG text for the page."""

    def __init__(self, out):
        self.folder = os.path.join(out, "figures")
        # A planted link would send every figure outside the report's folder.
        if os.path.islink(self.folder):
            raise SystemExit(f"loci: error: {self.folder}: is a symbolic link; the report writes its figures only "
                             "into a plain folder of its own (remove the link)")
        os.makedirs(self.folder, exist_ok=True)
        self.items = []

    def save(self, fig, name, title, caption):
        plain_numbers(fig)
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


def plain_numbers(fig):
    """Every linear axis of the figure (colour bars too) labels its ticks as plain numbers: no offset and no shared
    exponent, which read as a slope where the values barely differ."""
    for ax in fig.axes:
        for axis in (ax.xaxis, ax.yaxis):
            formatter = axis.get_major_formatter()
            if isinstance(formatter, matplotlib.ticker.ScalarFormatter):
                formatter.set_useOffset(False)
                formatter.set_scientific(False)


# The rule for y ranges: each quantity's axis spans at least a minimum of it, so that noise between runs (a change
# in the 4th digit) does not look like a trend; a narrower range is widened about its centre and kept within the
# quantity's bounds. (minimum span, lowest value, highest value) per kind; accuracies are in %.
Y_SPANS = {
    "accuracy": (10.0, 0.0, 100.0),     # percentage points
    "correlation": (0.2, -1.0, 1.0),    # RSA, cosine: at least ±0.1 about the data
    "r2": (0.2, -math.inf, 1.0),        # cross-validated R² can fall below 0
    "unit": (0.1, 0.0, 1.0),            # Procrustes disparity, kNN overlap
}


def y_kind(col):
    if col.endswith("accuracy"):
        return "accuracy"
    if col.startswith("rsa_") or col.endswith("_cosine"):
        return "correlation"
    if col.endswith("_r2") or "_r2_" in col:
        return "r2"
    if col.startswith("procrustes_") or col == "knn_overlap":
        return "unit"
    return None  # MSE, loss and the rest: at least 10% of the largest magnitude, never below 0


def pad_y_range(ax, values, kind):
    """Widens the y axis to the kind's minimum span (Y_SPANS) when the values shown span less."""
    values = [v for v in values if not math.isnan(v)]
    if not values:
        return
    lo, hi = min(values), max(values)
    span, low, high = Y_SPANS.get(kind) or (0.1 * max(abs(lo), abs(hi)) or 1.0, 0.0 if lo >= 0 else -math.inf,
                                            math.inf)
    if hi - lo >= span:
        return
    centre = (lo + hi) / 2
    lo, hi = max(low, centre - span / 2), min(high, centre + span / 2)
    lo, hi = max(low, hi - span), min(high, lo + span)  # pushed off a bound: the span stays whole
    ax.set_ylim(lo - 0.05 * span, hi + 0.05 * span)


def chance_line(ax, level, label="chance"):
    """A dashed line at chance (or another trivial predictor's level), labelled just right of the axes, where no data
    can hide the label (the legend names runs)."""
    ax.axhline(level, linestyle="--", linewidth=1, color="0.4", zorder=1)
    ax.text(1.01, level, label, transform=ax.get_yaxis_transform(), ha="left", va="center", fontsize=7,
            color="0.3", clip_on=False)


def sigma_ticks(ax, sigmas):
    """On a log σ axis, ticks at the σ values swept, labelled as plain numbers (0.2, 2) rather than powers of 10."""
    sigmas = sorted(set(sigmas))
    if 0 < len(sigmas) <= 8:
        ax.set_xticks(sigmas)
        ax.xaxis.set_major_formatter(matplotlib.ticker.FuncFormatter(lambda v, _: f"{v:g}"))
        ax.xaxis.set_minor_formatter(matplotlib.ticker.NullFormatter())
