#!/usr/bin/env python3
"""Data-parallel training of the paper's model with PyTorch's own DistributedDataParallel (gloo, 127.0.0.1): the
yardstick for loci's data-parallel torch_trainer (bench/scaleout/run.sh). One global batch of --batch puzzles per
step, split evenly over --ranks processes of one thread each; prints the training rate in puzzles (samples) per
second, timed by rank 0 over --steps steps after --warmup, best of --reps rounds.
"""
import argparse
import os
import sys
import time

import torch
import torch.distributed as dist
import torch.multiprocessing as mp
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from paper_model import PaperModel  # noqa: E402


def worker(rank, ranks, port, batch, steps, warmup, reps, queue):
    torch.set_num_threads(1)
    if ranks > 1:
        dist.init_process_group("gloo", init_method=f"tcp://127.0.0.1:{port}", rank=rank, world_size=ranks)
    torch.manual_seed(0)
    local = batch // ranks
    x = F.one_hot(torch.randint(0, 6, (local, 16)), 6)[..., :5].float()
    y = torch.randint(0, 4, (local,))
    model = PaperModel("learned", sigma=0.2)
    if ranks > 1:
        model = torch.nn.parallel.DistributedDataParallel(model)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4, weight_decay=0.0)

    def step():
        opt.zero_grad(set_to_none=True)
        F.cross_entropy(model(x), y).backward()
        opt.step()

    for _ in range(warmup):
        step()
    best = float("inf")
    for _ in range(reps):
        if ranks > 1:
            dist.barrier()
        start = time.perf_counter()
        for _ in range(steps):
            step()
        best = min(best, (time.perf_counter() - start) / steps)
    if rank == 0:
        queue.put(best)
    if ranks > 1:
        dist.destroy_process_group()


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--ranks", type=int, default=2)
    parser.add_argument("--batch", type=int, default=128)
    parser.add_argument("--steps", type=int, default=20)
    parser.add_argument("--warmup", type=int, default=3)
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--port", type=int, default=29731)
    a = parser.parse_args()
    ctx = mp.get_context("spawn")
    queue = ctx.SimpleQueue()
    procs = [ctx.Process(target=worker, args=(r, a.ranks, a.port, a.batch, a.steps, a.warmup, a.reps, queue))
             for r in range(a.ranks)]
    for p in procs:
        p.start()
    for p in procs:
        p.join()
        if p.exitcode != 0:
            sys.exit(f"rank exited with {p.exitcode}")
    seconds = queue.get()
    print(f"RESULT impl=pytorch_ddp ranks={a.ranks} ms_per_step={seconds * 1e3:.2f} samples_per_s={a.batch / seconds:.0f}")


if __name__ == "__main__":
    main()
