"""Markdown tables of an Experiment 1 sigma sweep from its analysis folder (summary.csv, correlations.csv):
    /usr/bin/python3 bench/exp1_tables.py runs/exp1_lst_sigma/analysis"""
import math, sys
import pandas as pd
folder = sys.argv[1]
s = pd.read_csv(f"{folder}/summary.csv")
c = pd.read_csv(f"{folder}/correlations.csv")
def f(r, col, d=1, scale=1.0):
    m, sd = r.get(col + "_mean"), r.get(col + "_sd")
    if m is None or (isinstance(m, float) and math.isnan(m)): return ""
    t = f"{m*scale:.{d}f}"
    if sd is not None and not (isinstance(sd, float) and math.isnan(sd)): t += f" ± {sd*scale:.{d}f}"
    return t
def g(r, col, d=3, scale=1.0):
    m = r.get(col + "_mean")
    return "" if m is None or (isinstance(m, float) and math.isnan(m)) else f"{m*scale:.{d}f}"
print("| PE | seeds | human % | test % | train % | attention cosine to 2d-fixed |")
print("|---|---:|---:|---:|---:|---:|")
for _, r in s.iterrows():
    print(f"| {r['group']} | {int(r['runs'])} | {f(r,'human_accuracy',1,100)} | {f(r,'test_accuracy',1,100)} | {f(r,'train_accuracy',1,100)} | {f(r,'attention_cosine',3)} |")
print()
print("| PE | RSA (epoch 0) | RSA p | RSA of displacement | RSA same row/col of displacement | Procrustes scale-free (epoch 0) | displacement Procrustes | raw residual (norm-matched random) | decoding R² (epoch 0) | displacement decoding R² | norm (epoch 0) | displacement norm |")
print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
for _, r in s.iterrows():
    print(f"| {r['group']} | {f(r,'rsa_spearman',3)} ({g(r,'init_rsa_spearman')}) | {g(r,'rsa_p_value')} | {f(r,'disp_rsa_spearman',3)} | {f(r,'disp_rsa_same_line_spearman',3)} | {f(r,'procrustes_oracle_disparity',3)} ({g(r,'init_procrustes_oracle_disparity')}) | {f(r,'disp_procrustes_oracle_disparity',3)} | {g(r,'procrustes_oracle_residual',1)} ({g(r,'control_procrustes_oracle_residual',1)}) | {f(r,'decode_r2',3)} ({g(r,'init_decode_r2')}) | {f(r,'disp_decode_r2',3)} | {g(r,'norm_frobenius',1)} ({g(r,'init_norm_frobenius',1)}) | {g(r,'disp_norm_frobenius',1)} |")
print()
noise = sorted({float(x.split("noise")[1].split("_")[0]) for x in s.columns if x.startswith("human_accuracy_noise") and x.endswith("_mean")})
print("| PE | " + " | ".join(f"sd {n:g}" for n in noise) + " |")
print("|---|" + "---:|" * len(noise))
for _, r in s.iterrows():
    print(f"| {r['group']} | " + " | ".join(f(r, f"human_accuracy_noise{n:.1f}" if f"human_accuracy_noise{n:.1f}_mean" in r else f"human_accuracy_noise{n}", 1, 100) for n in noise) + " |")
print()
print("| statistic | ρ with human accuracy | ρ with test accuracy | ρ with train accuracy | groups |")
print("|---|---:|---:|---:|---:|")
for stat, grp in c.groupby("statistic", sort=False):
    row = {a: v for a, v in zip(grp["against"], grp["spearman"])}
    n = int(grp["groups"].iloc[0])
    fmt = lambda v: "" if v is None or (isinstance(v, float) and math.isnan(v)) else f"{v:+.2f}"
    print(f"| {stat} | {fmt(row.get('human_accuracy'))} | {fmt(row.get('test_accuracy'))} | {fmt(row.get('train_accuracy'))} | {n} |")
