#!/usr/bin/env python3
"""The masked-regression model of Experiments 2 and 3 in plain PyTorch, as a researcher would write it.

One token per node or parcel (its window of 50 values), Linear(50 -> 64) embedding, half the tokens replaced by a
learned mask embedding, 4 post-LayerNorm blocks with 1 head and an MLP 64 -> 256 -> 64 (paper_model.Block), a learned
PE per block (N(0, 0.2^2)), Linear(64 -> 50) readout, MSE on the masked tokens, AdamW lr 1e-3, batch 32: the model
configs/network_train.yaml and parcels_train.yaml train. The yardstick for bench/models/bench_masked_model.

  --bench   training-step throughput (samples/s) for each --threads, best of --reps rounds of --steps steps.
"""
import argparse
import sys

import torch
import torch.nn as nn

from paper_model import Block, make_pe, seconds_per_step

BATCH, WINDOW, D, BLOCKS, HIDDEN = 32, 50, 64, 4, 256


class MaskedModel(nn.Module):
    def __init__(self, tokens=100):
        super().__init__()
        self.embedding = nn.Linear(WINDOW, D)
        self.mask_embedding = nn.Parameter(torch.randn(D) * 0.02)
        self.pe = make_pe("learned", tokens, D, 1, BLOCKS, sigma=0.2)
        self.blocks = nn.ModuleList(Block(D, 1, HIDDEN) for _ in range(BLOCKS))
        self.output = nn.Linear(D, WINDOW)

    def forward(self, x, mask):
        h = torch.where(mask.unsqueeze(-1), self.mask_embedding, self.embedding(x))
        for b, block in enumerate(self.blocks):
            h = block(h, self.pe, b)
        return self.output(h)


def masked_mse(prediction, target, mask):
    m = mask.unsqueeze(-1).to(prediction.dtype)
    return ((prediction - target) ** 2 * m).sum() / (m.sum() * target.shape[-1])


def random_mask(batch, tokens, ratio=0.5):
    count = round(ratio * tokens)
    return torch.rand(batch, tokens).argsort(1).argsort(1) < count


def bench(threads_list, steps, warmup, reps, tokens):
    torch.manual_seed(0)
    x = torch.randn(BATCH, tokens, WINDOW)
    for threads in threads_list:
        torch.set_num_threads(threads)
        model = MaskedModel(tokens)
        opt = torch.optim.AdamW(model.parameters(), lr=1e-3, weight_decay=0.0)

        def step():
            mask = random_mask(BATCH, tokens)
            opt.zero_grad(set_to_none=True)
            masked_mse(model(x, mask), x, mask).backward()
            opt.step()

        seconds = seconds_per_step(step, steps, warmup, reps)
        print(f"RESULT impl=python threads={threads} ms_per_step={seconds * 1e3:.2f} "
              f"samples_per_s={BATCH / seconds:.0f}")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bench", action="store_true")
    parser.add_argument("--threads", default="1,2")
    parser.add_argument("--steps", type=int, default=10)
    parser.add_argument("--reps", type=int, default=5)
    parser.add_argument("--warmup", type=int, default=3)
    parser.add_argument("--tokens", type=int, default=100)
    args = parser.parse_args()
    if not args.bench:
        parser.print_help()
        return 2
    bench([int(t) for t in args.threads.split(",")], args.steps, args.warmup, args.reps, args.tokens)
    return 0


if __name__ == "__main__":
    sys.exit(main())
