"""The report's statistics: the tables `loci analyze` wrote beside summary.csv (comparisons.csv, trends.csv,
correlations.csv, onsets.csv), as HTML. Each comparison with its effect size, interval, test and Holm-adjusted p; each
trend of a metric along a swept number; each correlation over runs beside its untrained control and the reading
that follows; the Kaplan-Meier fraction of runs whose PE took the
shape. Nothing here computes a statistic: the numbers are loci's, checked against scipy in its tests."""

import csv
import html
import math
import os

# Above this many rows a table lists only what survives Holm; the csv beside the page has every row.
MAX_ROWS = 40


def _rows(source, name):
    path = os.path.join(source, name)
    if not os.path.exists(path):
        return []
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def _num(text):
    try:
        v = float(text)
    except (TypeError, ValueError):
        return float("nan")
    return v


def _fmt(v, digits=3):
    return "n/a" if not math.isfinite(v) else f"{v:.{digits}f}"


def _p(v):
    return "n/a" if not math.isfinite(v) else ("< 0.0001" if v < 1e-4 else f"{v:.2g}")


def _table(head, rows):
    return ("<table><thead><tr>" + "".join(f"<th>{html.escape(h)}</th>" for h in head) + "</tr></thead><tbody>" +
            "".join("<tr>" + "".join(f"<td>{html.escape(str(c))}</td>" for c in r) + "</tr>" for r in rows) +
            "</tbody></table>")


def _comparisons(source):
    rows = _rows(source, "comparisons.csv")
    if not rows:
        return ""
    shown = rows if len(rows) <= MAX_ROWS else [r for r in rows if _num(r["p_holm"]) < 0.05]
    body = []
    for r in shown:
        pct = r["metric"].endswith("_accuracy")
        scale, digits = (100.0, 1) if pct else (1.0, 3)
        diff = _num(r["difference"]) * scale
        low, high = _num(r["ci_low"]) * scale, _num(r["ci_high"]) * scale
        n = f"{r['n_a']} pairs" if r["design"] == "paired" else f"{r['n_a']} vs {r['n_b']}"
        body.append([r["metric"], r["group_a"], r["group_b"], f"{_fmt(diff, digits)} [{_fmt(low, digits)}, "
                     f"{_fmt(high, digits)}]", _fmt(_num(r["effect_size"]), 2), f"{r['test']}, {n}",
                     _p(_num(r["p_value"])), _p(_num(r["p_holm"])), r["family"]])
    note = ("" if len(shown) == len(rows) else
            f" Listed: the {len(shown)} of {len(rows)} comparisons with Holm p < 0.05; comparisons.csv has all.")
    return ("<h2>Comparisons between groups</h2><p>B − A with its 95% t interval (accuracy in percentage points), "
            "effect size (paired: d_z; independent: Cohen's d), a permutation test paired by shared PE draw and "
            "dataset where the groups share them, and Holm's adjustment over the comparisons of each metric (family: "
            "their number)." + html.escape(note) + "</p>" +
            _table(["metric", "A", "B", "B − A [95% CI]", "d", "test", "p", "Holm p", "family"], body))


def _trends(source):
    rows = _rows(source, "trends.csv")
    if not rows:
        return ""
    body = [[r["setting"], r["family"], r["metric"], r["runs"], r["numbers"],
             f"{_fmt(_num(r['spearman']))} [{_fmt(_num(r['ci_low']))}, {_fmt(_num(r['ci_high']))}]", r["test"],
             _p(_num(r["p_value"])), _p(_num(r["p_holm"])), r["reading"]] for r in rows]
    return ("<h2>Trends along a swept number</h2><p>Does the number decide the metric? Spearman ρ of each held-out "
            "metric and RSA with a setting swept through three or more numbers, within each family of runs equal "
            "in every other setting, over runs, with a 95% bootstrap interval, a permutation p (within shared PE "
            "draws and datasets where the runs share them) and Holm over the table.</p>" +
            _table(["setting", "family", "metric", "runs", "numbers", "ρ [95% CI]", "test", "p", "Holm p",
                    "reading"], body))


def _correlations(source):
    rows = _rows(source, "correlations.csv")
    if not rows:
        return ""
    body = []
    for r in rows:
        control = bool(r["control_of"])
        body.append([("↳ " if control else "") + r["statistic"], r["against"], r["runs"],
                     f"{_fmt(_num(r['spearman']))} [{_fmt(_num(r['ci_low']))}, {_fmt(_num(r['ci_high']))}]",
                     _p(_num(r["p_value"])), "" if control else _p(_num(r["p_holm"])), r["reading"]])
    return ("<h2>Correlations with the task, over runs</h2><p>Spearman ρ of each statistic of the drawn PEs' runs "
            "with the task, computed over runs (not group means), with a 95% bootstrap interval and a permutation "
            "p, Holm over the trained statistics. Indented: the same correlation on the untrained control (init_: "
            "the PE at epoch 0; draw_: an independent fresh draw of the run's σ; control_: a random PE of the same "
            "norm). Where the control correlates alike, the "
            "correlation is explained by the PE's scale.</p>" +
            _table(["statistic", "against", "runs", "ρ [95% CI]", "p", "Holm p", "reading"], body))


def _onsets(source):
    rows = _rows(source, "onsets.csv")
    if not rows:
        return ""
    last = {}
    for r in rows:
        last[(r["statistic"], r["group"])] = r
    counts = {}
    for r in rows:
        k = (r["statistic"], r["group"])
        n, e = counts.get(k, (0, 0))
        counts[k] = (max(n, int(r["at_risk"])), e + int(r["onsets"]))
    body = [[s, g, counts[(s, g)][0], counts[(s, g)][1],
             f"{_fmt(_num(r['fraction_with_onset']), 2)} [{_fmt(_num(r['ci_low']), 2)}, {_fmt(_num(r['ci_high']), 2)}]"]
            for (s, g), r in last.items()]
    return ("<h2>When the PE takes the shape</h2><p>The fraction of runs whose PE (rsa) or attention position term "
            "(qk_rsa) took the shape by their last evaluation, Kaplan–Meier with runs that never did censored at "
            "their last evaluation, 95% interval (onsets.csv has every epoch).</p>" +
            _table(["onset of", "group", "runs", "onsets", "fraction by the last evaluation [95% CI]"], body))


def statistics_html(source):
    """The four tables, or '' where `loci analyze` wrote none of them."""
    return _comparisons(source) + _trends(source) + _correlations(source) + _onsets(source)
