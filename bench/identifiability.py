#!/usr/bin/env python3
"""How identifiable a dataset's token positions are from its activity, before any model is trained.

    /usr/bin/python3 bench/identifiability.py DATASET_FOLDER...

For each dataset of per-token activity (network_dynamics, volumetric_parcels; array `activity` [sample, token, time])
it prints, from the training split (fits) and the test split (scores):
  between-means    share of the variance that lies between the tokens' own means (what "which token" explains)
  rho(corr,dist)   Spearman between pairwise correlation and true distance over all token pairs
  adj-corr         mean correlation of graph neighbours (/adjacency)
  R2 nbrs          R^2 of a ridge fit of each token from its graph neighbours at the same time point, against
                   each token's own mean: what a model that knows the graph can get from one time point
  R2 half-random   the same from a random half of the other tokens (the visible ones at 50% masking)
  R2 pos-free      from the mean of a random half of the others, one coefficient per token: about what a model
                   that cannot tell tokens apart (no PE) can use
  lag1             mean lag-1 autocorrelation
Needs numpy, scipy and h5py (Debian: python3-numpy python3-scipy python3-h5py).
"""
import glob
import sys

import h5py
import numpy as np
from scipy.stats import spearmanr


def load(folder, split):
    arrays = []
    paths = sorted(glob.glob(f"{folder}/{split}-*.h5"))
    if not paths:
        sys.exit(f"{folder}: no {split}-*.h5 shards (a dataset folder of network_dynamics or volumetric_parcels?)")
    for path in paths:
        with h5py.File(path) as f:
            arrays.append(f["activity"][:])
            adjacency, distance = f["adjacency"][:], f["distance"][:]
    return np.concatenate(arrays), adjacency, distance


def ridge_r2(train, test, mean, base, sources):
    err = 0.0
    for i in range(train.shape[1]):
        js = sources(i)
        x, y = train[:, js] - mean[js], train[:, i] - mean[i]
        w = np.linalg.solve(x.T @ x + 1e-3 * len(x) * np.eye(len(js)), x.T @ y)
        err += (((test[:, js] - mean[js]) @ w - (test[:, i] - mean[i])) ** 2).mean()
    return 1 - err / train.shape[1] / base


def report(folder):
    tr, adjacency, distance = load(folder, "train")
    te, _, _ = load(folder, "test")
    n = tr.shape[1]
    x = tr.transpose(0, 2, 1).reshape(-1, n).astype(np.float64)  # time points x tokens
    y = te.transpose(0, 2, 1).reshape(-1, n).astype(np.float64)
    mean = x.mean(0)
    corr = np.corrcoef(x.T)
    upper = np.triu_indices(n, 1)
    base = ((y - mean) ** 2).mean()
    rng = np.random.default_rng(0)
    half = lambda i: np.setdiff1d(rng.permutation(n)[: n // 2], [i])
    free = 0.0
    for i in range(n):
        js = half(i)
        m, t = (x[:, js] - mean[js]).mean(1), x[:, i] - mean[i]
        b = (m @ t) / (m @ m)
        free += ((b * (y[:, js] - mean[js]).mean(1) - (y[:, i] - mean[i])) ** 2).mean()
    values = {
        "between-means": mean.var() / x.var(),
        "rho(corr,dist)": spearmanr(corr[upper], distance[upper]).correlation,
        "adj-corr": corr[upper][adjacency[upper] > 0].mean(),
        "R2 nbrs": ridge_r2(x, y, mean, base, lambda i: np.flatnonzero(adjacency[i])),
        "R2 half-random": ridge_r2(x, y, mean, base, half),
        "R2 pos-free": 1 - free / n / base,
        "lag1": np.mean([np.corrcoef(x[:-1, i], x[1:, i])[0, 1] for i in range(n)]),
    }
    print(f"{folder:28s} " + " ".join(f"{k} {v:+.3f}" for k, v in values.items()))


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    for folder in sys.argv[1:]:
        report(folder)
