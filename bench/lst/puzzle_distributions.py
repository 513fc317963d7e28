#!/usr/bin/env python3
"""loci's puzzles against the authors': the two Latin Square Task training sets side by side (issue 54).

Reads two lst_grid datasets (h5py; loci need not be installed) and compares, over their train and test splits:
givens per puzzle, class balance, answer balance, how often each cell is the target, the deduction strategy,
repeated puzzles, the exact solver's check (label_verified), and the smallest Jaccard distance of each puzzle to the
108 human puzzles (the paper's filter keeps it above 0.8). Writes a markdown table and a figure.

  loci generate configs/lst.yaml out=/tmp/lst_loci
  loci generate configs/lst.yaml out=/tmp/lst_authors lst.source=file
  /usr/bin/python3 bench/lst/puzzle_distributions.py /tmp/lst_loci /tmp/lst_authors bench/figures/lst_puzzles
"""
import glob
import json
import sys

import h5py
import numpy as np


def read(folder):
    """The train and test splits' arrays of a dataset folder, concatenated; `split` says which each row is from."""
    index = json.load(open(f"{folder}/index.json"))
    out = {}
    for shard in index["shards"]:
        if shard["split"] not in ("train", "test"):
            continue
        with h5py.File(f"{folder}/{shard['file']}", "r") as f:
            out.setdefault("split", []).append(np.full(len(f["label"]), shard["split"] == "test"))
            for name in ("tokens", "label", "condition", "strategy", "target_cell", "givens", "label_verified",
                         "reference_distance"):
                out.setdefault(name, []).append(f[name][:])
            names = f.attrs["strategy_names"]
            out["strategy_names"] = (names.decode() if isinstance(names, bytes) else str(names)).split(",")
    return {k: (np.concatenate(v) if k != "strategy_names" else v) for k, v in out.items()}


def share(values, k):
    return np.array([(values == i).mean() for i in range(k)])


def summary(d):
    tokens = d["tokens"].reshape(len(d["label"]), -1)
    unique = len({t.tobytes() for t in tokens})
    train = {t.tobytes() for t, test in zip(tokens, d["split"]) if not test}
    leaked = sum(t.tobytes() in train for t, test in zip(tokens, d["split"]) if test)
    return {
        "puzzles": len(d["label"]),
        "repeated puzzles": len(d["label"]) - unique,
        "test puzzles also in train": f"{leaked} of {int(d['split'].sum())}",
        "givens mean (sd)": f"{d['givens'].mean():.2f} ({d['givens'].std():.2f})",
        "givens range": f"{d['givens'].min()}-{d['givens'].max()}",
        "class shares (B/T/Q)": "/".join(f"{x:.3f}" for x in share(d["condition"], 3)),
        "answer shares (1-4)": "/".join(f"{x:.3f}" for x in share(d["label"], 4)),
        "target cell: most/least frequent share": f"{share(d['target_cell'], 16).max():.3f}/{share(d['target_cell'], 16).min():.3f}",
        "answer unique and stated (label_verified)": f"{d['label_verified'].mean():.3f}",
        "min Jaccard to human puzzles: min / median": f"{d['reference_distance'].min():.3f} / {np.median(d['reference_distance']):.3f}",
    }


def tv_distance(a, b, k):
    """Total-variation distance between two categorical distributions over 0..k-1."""
    return 0.5 * np.abs(share(a, k) - share(b, k)).sum()


def main(loci_folder, authors_folder, figure):
    a, b = read(loci_folder), read(authors_folder)
    sa, sb = summary(a), summary(b)
    print("| | loci's generator | the authors' puzzles |\n|---|---|---|")
    for key in sa:
        print(f"| {key} | {sa[key]} | {sb[key]} |")
    print()
    print(f"total-variation distance, givens: {tv_distance(a['givens'], b['givens'], 16):.3f}; target cell: "
          f"{tv_distance(a['target_cell'], b['target_cell'], 16):.3f}; strategy: "
          f"{tv_distance(a['strategy'], b['strategy'], len(a['strategy_names'])):.3f}")
    names = a["strategy_names"]
    print("strategy shares (loci / authors): " + ", ".join(
        f"{n} {x:.3f}/{y:.3f}" for n, x, y in zip(names, share(a["strategy"], len(names)), share(b["strategy"], len(names)))))
    for c, cname in enumerate(("Binary", "Ternary", "Quaternary")):
        ga, gb = a["givens"][a["condition"] == c], b["givens"][b["condition"] == c]
        print(f"givens of {cname}: loci {ga.mean():.2f} ({ga.min()}-{ga.max()}), authors {gb.mean():.2f} ({gb.min()}-{gb.max()})")

    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, axes = plt.subplots(1, 4, figsize=(15, 3.4))
    width = 0.4
    for ax, (name, k, label) in zip(axes[:2], (("givens", 16, "givens per puzzle"), ("condition", 3, "class"))):
        x = np.arange(k)
        ax.bar(x - width / 2, share(a[name], k), width, label="loci")
        ax.bar(x + width / 2, share(b[name], k), width, label="authors")
        ax.set_xlabel(label)
        ax.set_ylabel("share of puzzles")
        if name == "condition":
            ax.set_xticks(x, ["Binary", "Ternary", "Quaternary"])
    axes[0].legend(frameon=False)
    for ax, (d, who) in zip(axes[2:], ((a, "loci"), (b, "authors"))):
        im = ax.imshow(share(d["target_cell"], 16).reshape(4, 4), vmin=0, vmax=0.2, cmap="viridis")
        ax.set_title(f"target-cell share, {who}")
        ax.set_xticks(range(4))
        ax.set_yticks(range(4))
    fig.colorbar(im, ax=axes[3], fraction=0.046)
    fig.tight_layout()
    fig.savefig(f"{figure}.png", dpi=120)
    fig.savefig(f"{figure}.svg")


if __name__ == "__main__":
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    main(*sys.argv[1:])
