#!/usr/bin/env python3
"""The authors' own training of the paper's model (Experiment 1), timed from their public code: the yardstick of
issue 20's "loci >= 2x the authors' code" and "bf16 >= 3.5x the authors' fp32 code".

Nothing of their code is in loci: --lstnn names a checkout of https://github.com/ljhearne/LSTNN_public (MIT licence),
whose lstnn/ package and processed_data/ this program imports and reads as they are. It builds what their
scripts/run_transformer.py builds for the paper's setting (--pe learn --pe_init 0.2 --layers 4 --attnheads 1
--embedding_dim 160 --lr 1e-4 --wdecay 0; batch 128): their Transformer, CrossEntropyLoss and AdamW, a shuffled
DataLoader over their get_dataset() of their three generated-puzzle files, and then runs their own train() function,
one epoch per call, on the CPU. Their script imports lstnn.curricula, which the public repository lacks; train()
does not use it, so an empty module stands in for it and the 90% training split (their get_curriculum('All')) is a
seeded random 90% of the puzzles.

  --epochs N   epochs per round (default 1: 8100 puzzles, 64 steps); --reps rounds, best kept (default 3).
Prints RESULT impl=authors threads=T ms_per_step=... puzzles_per_s=... per thread count.
"""
import argparse
import importlib
import os
import sys
import time
import types

TRAINING_FILES = [f"processed_data/generated_puzzle_data_{c}_dist80.csv" for c in ("binary", "ternary", "quaternary")]


def load_authors(lstnn_dir):
    """Their transformer_main, dataset and run_transformer.train, imported from the checkout."""
    sys.path.insert(0, lstnn_dir)
    sys.path.insert(0, os.path.join(lstnn_dir, "scripts"))
    sys.modules.setdefault("lstnn.curricula", types.ModuleType("lstnn.curricula"))
    sys.modules["lstnn.curricula"].get_curriculum = None  # what run_transformer imports; train() never calls it
    transformer_main = importlib.import_module("lstnn.transformer_main")
    dataset = importlib.import_module("lstnn.dataset")
    run_transformer = importlib.import_module("run_transformer")  # sets torch.set_num_threads(8) at import
    return transformer_main, dataset, run_transformer


def bench(args):
    import numpy as np
    import torch
    from torch.utils.data import DataLoader, Subset

    files = [os.path.join(args.lstnn, f) for f in TRAINING_FILES]
    for f in files + [os.path.join(args.lstnn, p) for p in ("lstnn/transformer_main.py", "scripts/run_transformer.py")]:
        if not os.path.isfile(f):
            sys.exit(f"authors_paper_model: {f} is missing: --lstnn must name a checkout of LSTNN_public")
    transformer_main, dataset, run_transformer = load_authors(os.path.abspath(args.lstnn))
    full = dataset.get_dataset(files)
    rng = np.random.default_rng(0)
    train_index = rng.permutation(len(full))[: int(round(0.9 * len(full)))]
    for threads in args.threads:
        torch.set_num_threads(threads)
        torch.manual_seed(0)
        model = transformer_main.Transformer(input_dim=5, output_dim=4, max_tokens=16, nhead=1, nblocks=4,
                                             embedding_dim=160, dropout=0.0, positional_encoding="learn",
                                             pe_init=0.2)
        optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4, weight_decay=0.0)
        loss_fn = torch.nn.CrossEntropyLoss()
        loader = DataLoader(Subset(full, train_index), batch_size=128, shuffle=True)
        steps = len(loader) * args.epochs
        run_transformer.train(loader, model, loss_fn, optimizer, device="cpu")  # warm-up epoch
        best = float("inf")
        for _ in range(args.reps):
            start = time.perf_counter()
            for _ in range(args.epochs):
                run_transformer.train(loader, model, loss_fn, optimizer, device="cpu")
            best = min(best, (time.perf_counter() - start) / steps)
        puzzles = len(train_index) * args.epochs / steps
        print(f"RESULT impl=authors threads={threads} ms_per_step={best * 1e3:.2f} "
              f"puzzles_per_s={puzzles / best:.0f}", flush=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--lstnn", required=True, help="a checkout of github.com/ljhearne/LSTNN_public")
    parser.add_argument("--threads", default="1,2")
    parser.add_argument("--epochs", type=int, default=1)
    parser.add_argument("--reps", type=int, default=3)
    args = parser.parse_args()
    args.threads = [int(t) for t in args.threads.split(",")]
    if args.epochs < 1 or args.reps < 1 or min(args.threads) < 1:
        parser.error("--epochs, --reps and --threads must be >= 1")
    bench(args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
