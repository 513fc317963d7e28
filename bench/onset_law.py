#!/usr/bin/env python3
"""Does the onset of a PE's geometry follow a law in lr x weight decay, with the runs that never had one counted?

The regime map's first fit kept only the 9 runs with an onset and dropped the rest; the runs a law predicts to be
late are exactly the ones that have none by their last evaluation, so dropping them biases any slope toward zero.
This fits the law as a censored regression instead: log onset = a + b * log(1 / (lr * wd)) + s * e, e ~ N(0, 1)
(a log-normal accelerated-failure-time model), where a run without an onset contributes the probability of an
onset after its last evaluation. The law onset ~ 1 / (lr * wd) is b = 1. It reports b with its 95% profile-likelihood
interval and the likelihood-ratio p of b = 1, and, per value of lr * wd, the Kaplan-Meier fraction of runs with an
onset by their last evaluation. Runs without decay have no lr * wd and are listed apart.

    /usr/bin/python3 bench/onset_law.py ANALYSIS/runs.csv [--statistic rsa_onset_epoch]
"""
import argparse
import csv
import math
import sys

import numpy as np
from scipy import optimize, stats


def read_runs(path, statistic):
    runs = []
    with open(path, newline="") as f:
        for r in csv.DictReader(f):
            lr, wd = float(r.get("train.lr") or "nan"), float(r.get("train.weight_decay") or "nan")
            onset, last = r.get(statistic, ""), r.get("last_epoch", "")
            if not last:
                continue
            runs.append({"lr": lr, "wd": wd, "event": onset != "", "time": float(onset or last), "group": r["group"]})
    return runs


def neg_log_likelihood(params, x, log_t, event):
    a, b, log_s = params
    s = math.exp(log_s)
    z = (log_t - a - b * x) / s
    return -(np.sum(stats.norm.logpdf(z[event]) - log_s) + np.sum(stats.norm.logsf(z[~event])))


def fit(x, log_t, event, fixed_b=None):
    start = [float(np.mean(log_t)), 0.0 if fixed_b is None else fixed_b, 0.0]
    if fixed_b is None:
        res = optimize.minimize(neg_log_likelihood, start, args=(x, log_t, event), method="Nelder-Mead",
                                options={"maxiter": 20000, "xatol": 1e-8, "fatol": 1e-10})
        return res.x, res.fun
    res = optimize.minimize(lambda p: neg_log_likelihood([p[0], fixed_b, p[1]], x, log_t, event), [start[0], 0.0],
                            method="Nelder-Mead", options={"maxiter": 20000, "xatol": 1e-8, "fatol": 1e-10})
    return [res.x[0], fixed_b, res.x[1]], res.fun


def profile_interval(x, log_t, event, best_b, best_nll, level=0.95):
    """The b whose profile likelihood is within chi2(1) of the best: scanned outward, then refined by bisection."""
    cut = stats.chi2.ppf(level, 1) / 2

    def gap(b):
        return fit(x, log_t, event, b)[1] - best_nll - cut

    bounds = []
    for direction in (-1, 1):
        step, b = 0.25, best_b
        while gap(b + direction * step) < 0 and step < 64:
            step *= 2
        if gap(b + direction * step) < 0:
            bounds.append(-math.inf if direction < 0 else math.inf)
            continue
        bounds.append(optimize.brentq(gap, *sorted((b, b + direction * step))))
    return bounds


def kaplan_meier_by_last(runs):
    times = sorted(runs, key=lambda r: r["time"])
    at_risk, survival = len(times), 1.0
    for t in sorted({r["time"] for r in times}):
        d = sum(1 for r in times if r["time"] == t and r["event"])
        if d:
            survival *= 1 - d / at_risk
        at_risk -= sum(1 for r in times if r["time"] == t)
    return 1 - survival


def main(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("runs_csv")
    p.add_argument("--statistic", default="rsa_onset_epoch")
    a = p.parse_args(argv)
    runs = read_runs(a.runs_csv, a.statistic)
    decayed = [r for r in runs if r["wd"] > 0 and r["lr"] > 0]
    undecayed = [r for r in runs if not r["wd"] > 0]
    print(f"{a.statistic}: {len(runs)} runs, {sum(r['event'] for r in runs)} with an onset; "
          f"{len(decayed)} with decay enter the fit, {len(undecayed)} without decay are listed apart")
    print("\n| lr·wd | runs | onsets | Kaplan-Meier fraction with an onset by the last evaluation |\n|---|---|---|---|")
    for product in sorted({r["lr"] * r["wd"] for r in decayed}):
        group = [r for r in decayed if r["lr"] * r["wd"] == product]
        print(f"| {product:g} | {len(group)} | {sum(r['event'] for r in group)} | {kaplan_meier_by_last(group):.2f} |")
    if undecayed:
        print(f"| no decay | {len(undecayed)} | {sum(r['event'] for r in undecayed)} | "
              f"{kaplan_meier_by_last(undecayed):.2f} |")
    events = sum(r["event"] for r in decayed)
    if len({r["lr"] * r["wd"] for r in decayed}) < 2 or events < 2:
        print("\nNo fit: the law needs at least two values of lr·wd and two onsets among the decayed runs.")
        return 0
    x = np.array([math.log(1 / (r["lr"] * r["wd"])) for r in decayed])
    log_t = np.array([math.log(r["time"]) for r in decayed])
    event = np.array([r["event"] for r in decayed])
    (a0, b, log_s), nll = fit(x, log_t, event)
    low, high = profile_interval(x, log_t, event, b, nll)
    law_nll = fit(x, log_t, event, 1.0)[1]
    p_law = stats.chi2.sf(2 * (law_nll - nll), 1)
    print(f"\nCensored log-normal fit over {len(decayed)} runs ({events} onsets, {len(decayed) - events} censored at "
          f"their last evaluation): log onset = {a0:.2f} + {b:.2f} · log(1/(lr·wd)), residual sd {math.exp(log_s):.2f}; "
          f"slope 95% profile interval [{low:.2f}, {high:.2f}]; the law (slope 1): likelihood-ratio p = {p_law:.3g}.")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
