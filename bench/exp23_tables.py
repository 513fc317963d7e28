"""Markdown tables of an Experiment 2 or 3 pipeline (masked regression) from its analysis folder, or from per-run
tables (runs.csv of loci analyze) of runs made in different sessions, pooled by group (mean ± sd over runs):
    /usr/bin/python3 bench/exp23_tables.py runs/exp2_network_100/analysis
    /usr/bin/python3 bench/exp23_tables.py bench/data/exp3_parcels_100/runs.csv [more runs.csv ...]
Held-out MSE and R² (against each token's own training mean) at 90% and 50% masking, then each PE's probes beside
their controls: the same probe at epoch 0, the permutation p, and the attention's position term."""
import math
import sys

import pandas as pd



def pooled(paths):
    """summary.csv's mean and sd columns (sd over runs, n - 1, 0 for one run) from per-run tables."""
    runs = pd.concat([pd.read_csv(p) for p in paths], ignore_index=True).drop_duplicates("folder", keep="last")
    numeric = [c for c in runs.columns if c not in ("folder", "group", "pe_type", "placement", "init", "sigma", "seed")
               and pd.api.types.is_numeric_dtype(runs[c])]
    rows = []
    for group, g in runs.groupby("group", sort=False):
        row = {"group": group, "runs": len(g)}
        for c in numeric:
            row[c + "_mean"] = g[c].mean()
            row[c + "_sd"] = g[c].std(ddof=1) if g[c].count() > 1 else 0.0
        rows.append(row)
    return pd.DataFrame(rows)


s = pooled(sys.argv[1:]) if sys.argv[1].endswith(".csv") else pd.read_csv(f"{sys.argv[1]}/summary.csv")


def cell(r, col, digits=3, sd=True):
    m = r.get(col + "_mean")
    if m is None or (isinstance(m, float) and math.isnan(m)):
        return ""
    text = f"{m:.{digits}f}"
    v = r.get(col + "_sd")
    if sd and v is not None and not (isinstance(v, float) and math.isnan(v)):
        text += f" ± {v:.{digits}f}"
    return text


print("| PE | seeds | test MSE @0.9 | R² @0.9 | test MSE @0.5 | R² @0.5 | train R² @0.9 |")
print("|---|---:|---:|---:|---:|---:|---:|")
for _, r in s.iterrows():
    print(f"| {r['group']} | {int(r['runs'])} | {cell(r, 'test_mse')} | {cell(r, 'test_r2_token_mean')} | "
          f"{cell(r, 'test@0.5_mse')} | {cell(r, 'test@0.5_r2_token_mean')} | {cell(r, 'train_r2_token_mean')} |")
print()
print("| PE | RSA distance (epoch 0) | RSA p | RSA FC | attention term RSA (epoch 0) | its p | decoding R² (epoch 0) "
      "| PE / embedding norm |")
print("|---|---:|---:|---:|---:|---:|---:|---:|")
for _, r in s.iterrows():
    if not cell(r, "rsa_spearman") and not cell(r, "qk_rsa_spearman"):
        continue
    print(f"| {r['group']} | {cell(r, 'rsa_spearman')} ({cell(r, 'init_rsa_spearman', sd=False)}) | "
          f"{cell(r, 'rsa_p_value', sd=False)} | {cell(r, 'rsa_fc_spearman')} | "
          f"{cell(r, 'qk_rsa_spearman')} ({cell(r, 'init_qk_rsa_spearman', sd=False)}) | "
          f"{cell(r, 'qk_rsa_p_value', sd=False)} | {cell(r, 'decode_r2')} ({cell(r, 'init_decode_r2', sd=False)}) | "
          f"{cell(r, 'pe_to_embedding_norm', 2)} |")
