"""The report's opening reading: what these runs found, each number beside its control, generated from the
analysis (analysis.json per run), never claiming more than the numbers show.

- the task effect: each group's accuracy against chance (or its R² against each token's own mean);
- the geometry effect: each drawn PE's RSA against its value at epoch 0 and its permutation p, printed;
- where the geometry lives: the attention's position-position term (P Wq Wkᵀ Pᵀ) against its epoch 0 and p;
- the scale caveat: where the raw Procrustes residual equals a norm-matched random PE's, and where the task differs
  by σ while no PE's shape does, the difference is not separable from the PE's scale.
"""

import html
import math
import statistics



def _finite(values):
    return [v for v in values if isinstance(v, (int, float)) and math.isfinite(v)]


def _mean(values):
    v = _finite(values)
    return statistics.fmean(v) if v else float("nan")


def _median(values):
    v = _finite(values)
    return statistics.median(v) if v else float("nan")


def _groups(analyses):
    out = {}
    for a in analyses:
        out.setdefault(a["run"]["group"], []).append(a)
    return out


def _final(runs, key):
    return [r.get("final", {}).get(key) if isinstance(r.get("final"), dict) else None for r in runs]


def _p(p):
    return "n/a" if not math.isfinite(p) else (f"{p:.3f}" if p >= 0.001 else "< 0.001")


def _task_sentence(groups, task_col, chance):
    split, metric = task_col.rsplit("_", 1)
    rows = []
    for name, runs in groups.items():
        vals = [r.get("metrics", {}).get(split, {}).get(metric) for r in runs]
        m = _mean(vals)
        if math.isfinite(m):
            rows.append((m, name, len(_finite(vals))))
    if not rows:
        return ""
    rows.sort(reverse=(metric == "accuracy"))
    if metric == "accuracy":
        parts = [f"{name} {100 * m:.1f}%" + (f" ({n} seeds)" if n > 1 else "") for m, name, n in rows]
        text = f"Task: accuracy on the {split} split, best first: " + "; ".join(parts) + "."
        if chance:
            above = [name for m, name, _ in rows if 100 * m > chance + 10]
            at = [name for m, name, _ in rows if 100 * m <= chance + 10]
            text += f" Chance is {chance:.3g}%: "
            text += ("above it by more than 10 points: " + ", ".join(above) if above else "no group is more than 10 "
                     "points above it")
            text += ("; within 10 points of it: " + ", ".join(at) if at else "") + "."
        return text
    parts = [f"{name} {m:.4g}" for m, name, _ in rows]
    text = f"Task: held-out {metric.upper()} on {split}, lowest first: " + "; ".join(parts) + "."
    r2 = []
    for name, runs in groups.items():
        v = _mean([r.get("metrics", {}).get(split, {}).get("r2_token_mean") for r in runs])
        if math.isfinite(v):
            r2.append(f"{name} {v:+.3f}")
    if r2:
        text += (" R² against each token's own training mean (0 = no better than that trivial predictor): " +
                 "; ".join(r2) + ".")
    return text


def _task_differs(groups, task_col):
    """Whether the groups' task results differ by more than noise: 10 points of accuracy, or 10% of the MSE."""
    if not task_col:
        return False
    split, metric = task_col.rsplit("_", 1)
    means = _finite([_mean([r.get("metrics", {}).get(split, {}).get(metric) for r in runs]) for runs in groups.values()])
    if len(means) < 2:
        return False
    if metric == "accuracy":
        return max(means) - min(means) > 0.1
    return min(means) > 0 and max(means) / min(means) > 1.1


def _shape_sentence(name, runs, key, what):
    """One PE group's RSA (key 'rsa' for the PE, 'qk_rsa' for its attention term) beside epoch 0 and p. Whether a
    run took the shape is analysis.json's <key>_took_shape: loci's one definition (apps/analysis/onset.hpp), which
    the onset and the summary use too: permutation p < 0.05 and a rise over epoch 0 beyond the null's spread."""
    now = _mean(_final(runs, f"{key}_spearman"))
    start = _mean(_final(runs, f"init_{key}_spearman"))
    p = _median(_final(runs, f"{key}_p_value"))
    onset = _finite(_final(runs, f"{key}_onset_epoch"))
    if not math.isfinite(now):
        return None, False
    verdicts = [v for v in _final(runs, f"{key}_took_shape") if isinstance(v, bool)]
    took_runs = sum(verdicts)
    took = bool(verdicts) and took_runs * 2 > len(verdicts)
    base = f"epoch 0: {start:+.3f}, " if math.isfinite(start) else ""
    text = f"{name}: {what} RSA {now:+.3f} ({base}permutation p {_p(p)}"
    text += f", median over {len(runs)} seeds)" if len(runs) > 1 else ")"
    if took:
        text += f" — took the shape of the positions in {took_runs} of {len(verdicts)} runs"
        if onset:
            text += f" (first at epoch {min(onset):g})"
    elif took_runs:
        text += f" — took the shape in only {took_runs} of {len(verdicts)} runs"
    elif verdicts:
        text += " — did not take the shape of the positions (no run rose beyond its permutation null's spread)"
    else:
        text += " — no epoch-0 PE to tell a learned shape from the draw's"
    return text + ".", took


def _scale_note(groups):
    """Where the raw Procrustes residual is the norm-matched random PE's, it measures scale, not shape."""
    same = []
    for name, runs in groups.items():
        raw = _mean(_final(runs, "procrustes_oracle_residual"))
        control = _mean(_final(runs, "control_procrustes_oracle_residual"))
        if math.isfinite(raw) and math.isfinite(control) and control > 0 and abs(raw - control) / control < 0.02:
            same.append(f"{name} ({raw:.1f} vs {control:.1f})")
    if not same:
        return ""
    return ("Scale, not shape: the raw Procrustes residual to the oracle equals that of a random PE of the same norm "
            "for " + ", ".join(same) + "; across σ it measures the PE's norm.")


def reading_html(analyses, columns, chance):
    """The reading as HTML paragraphs (escaped), or '' when there is nothing to read."""
    groups = _groups(analyses)
    if not groups:
        return ""
    lines = []
    task = _task_sentence(groups, columns[0], chance) if columns else ""
    if task:
        lines.append(task)
    shape_lines, any_took, drawn = [], False, []
    for name, runs in sorted(groups.items()):
        # A fixed PE's own RSA never moves; its attention term can, through Wq and Wk alone.
        if runs[0]["run"].get("drawn"):
            drawn.append(name)
            text, took = _shape_sentence(name, runs, "rsa", "the PE's")
            if text:
                shape_lines.append(text)
                any_took = any_took or took
        term, _ = _shape_sentence(name, runs, "qk_rsa", "its attention's position term (P Wq Wkᵀ Pᵀ):")
        if term:
            shape_lines.append(term)
    if shape_lines:
        lines.append("Geometry, each PE's RSA (Spearman between PE and true distances, mean over blocks) beside its "
                     "value at initialisation and a permutation test (true positions shuffled 1000 times):")
        lines.extend(shape_lines)
    note = _scale_note(groups)
    if note:
        lines.append(note)
    if drawn and not any_took and _task_differs(groups, columns[0] if columns else None):
        lines.append("Not separable from scale: the groups' task results differ, but no drawn PE's shape moved from "
                     "its draw significantly; the difference goes with the draw's scale (σ), not with a geometry the "
                     "PE learned.")
    return "".join(f'<p class="reading">{html.escape(line)}</p>\n' for line in lines)
