"""Experiment 1's long pair over training: per evaluation of each run, its accuracy and every PE probe (mean over
blocks), on the raw PE and on its displacement PE(t) - PE(0), from the runs' analysis.json:
    /usr/bin/python3 bench/exp1_long_table.py runs/exp1_lst_long/runs/*      (after `loci analyze` on them)"""
import json, sys

for folder in sys.argv[1:]:
    a = json.load(open(f"{folder}/analysis.json"))
    human = {c["epoch"]: c["accuracy"] for c in a["curves"] if c["split"] == "human"}
    train = {c["epoch"]: c["accuracy"] for c in a["curves"] if c["split"] == "train"}
    print(f"**{a['run']['group']}, seed {a['run']['seed']}**\n")
    print("| epoch | human % | train % | RSA | RSA same row/col | Procrustes to 2d-fixed (scale-free) | raw residual "
          "(norm-matched random) | decoding R² | norm | displacement: norm | RSA | Procrustes |")
    print("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for e in a["evaluations"]:
        m, d, ep = e["mean"], e.get("displacement") or {}, e["epoch"]
        def v(x, key, digits=3):
            return "" if x.get(key) is None else f"{x[key]:.{digits}f}"
        acc = lambda t: "" if ep not in t else f"{100 * t[ep]:.1f}"
        print(f"| {ep} | {acc(human)} | {acc(train)} | {v(m, 'rsa_spearman')} | {v(m, 'rsa_same_line_spearman')} | "
              f"{v(m, 'procrustes_oracle_disparity')} | {v(m, 'procrustes_oracle_residual', 1)} "
              f"({v(m, 'control_procrustes_oracle_residual', 1)}) | {v(m, 'decode_r2')} | {v(m, 'norm_frobenius', 1)} | "
              f"{v(d, 'norm_frobenius', 2)} | {v(d, 'rsa_spearman')} | {v(d, 'procrustes_oracle_disparity')} |")
    print()
