#!/usr/bin/env python3
"""The model of Experiment 1 of Ito et al. (ICML 2025) in plain PyTorch, as a researcher would write it.

Linear(5 -> 160) token embedding, 4 post-LayerNorm encoder blocks with 1 attention head, an MLP 160 -> 640 -> 160 with
GELU after both linears, the positional encoding added at the input of every block (each block its own), and a
Linear(160 -> 4) readout on the last token. It is the yardstick for loci's C++ models (models/), not a second source
of truth. Every fixed table (sinusoids, ALiBi slopes, rotary angles, relative offsets) is computed here from its
textbook definition, independently of the C++ code; only the weights are shared.

  --parity CASE.pt ...  load each case written by tests/models/test_parity.cpp (weights, input, PE settings), run
                        the model and write its logits to CASE.pt.logits.pt.
  --bench               training-step throughput (puzzles/s) at batch 128 for 1 and 2 threads, best of
                        --reps rounds of --steps steps.
"""
import argparse
import math
import sys
import time

import torch
import torch.nn as nn
import torch.nn.functional as F


# ----- Positional encodings. Each offers add (block input), bias (attention logits), rotate (q, k), causal.
def sinusoid(coordinate, width, base=10000.0):
    """[T] -> [T, width]: sin at even columns, cos at odd ones, frequencies base^(-2k/width)."""
    table = torch.zeros(len(coordinate), width, dtype=torch.float64)
    position = coordinate.to(torch.float64).unsqueeze(1)
    div_term = torch.exp(torch.arange(0, width - width % 2, 2, dtype=torch.float64) * (-math.log(base) / width))
    table[:, 0:width - width % 2:2] = torch.sin(position * div_term)
    table[:, 1::2] = torch.cos(position * div_term)
    return table.float()


class PositionalEncoding(nn.Module):
    causal = False

    def add(self, x, block):
        return x

    def bias(self, q, block):
        return None

    def rotate(self, q, k):
        return q, k


class NoPE(PositionalEncoding):
    pass


class Learned(PositionalEncoding):
    """One free [T, d] matrix per block (the C++ 'pe_<block>')."""

    def __init__(self, tokens, d, blocks, sigma):
        super().__init__()
        self.tables = nn.ParameterList([nn.Parameter(torch.randn(tokens, d) * sigma) for _ in range(blocks)])

    def add(self, x, block):
        return x + self.tables[block]


class RandomFixed(PositionalEncoding):
    def __init__(self, tokens, d, blocks):
        super().__init__()
        for b in range(blocks):
            self.register_buffer(f"table_{b}", torch.randn(tokens, d))

    def add(self, x, block):
        return x + getattr(self, f"table_{block}")


class FixedTable(PositionalEncoding):
    def __init__(self, table, dropout=0.0):
        super().__init__()
        self.register_buffer("table", table)
        self.dropout = dropout

    def add(self, x, block):
        x = x + self.table
        # The authors' quirk: the dropout is applied with training=True, so it stays on in evaluation.
        return F.dropout(x, self.dropout, training=True) if self.dropout > 0 else x


def sinusoidal_1d(tokens, d):
    return FixedTable(sinusoid(torch.arange(tokens), d))


def sinusoidal_2d(rows, cols, d):
    """The paper's '2d-fixed': first half of the dims the column's sinusoid, second half the row's."""
    t = torch.arange(rows * cols)
    row, col = t // cols, t % cols
    return FixedTable(torch.cat([sinusoid(col, d // 2), sinusoid(row, d // 2)], dim=1))


class RelativeBias(PositionalEncoding):
    """A learned logit bias per head and index offset j - i, one table [heads, 2T - 1] per block."""

    def __init__(self, tokens, heads, blocks):
        super().__init__()
        self.tables = nn.ParameterList([nn.Parameter(torch.zeros(heads, 2 * tokens - 1)) for _ in range(blocks)])
        i = torch.arange(tokens).unsqueeze(1)
        j = torch.arange(tokens).unsqueeze(0)
        self.register_buffer("index", j - i + tokens - 1)

    def bias(self, q, block):
        return self.tables[block][:, self.index].unsqueeze(0)


class MusicRelative(PositionalEncoding):
    """Music-Transformer relative attention (Huang et al. 2018) with the skewing procedure and a causal mask.
    E_r [heads, T, dh] per block; row T-1 is offset 0, row 0 offset -(T-1)."""
    causal = True

    def __init__(self, tokens, heads, dh, blocks):
        super().__init__()
        self.tables = nn.ParameterList([nn.Parameter(torch.randn(heads, tokens, dh)) for _ in range(blocks)])

    def bias(self, q, block):
        rel = q @ self.tables[block].transpose(-1, -2)  # [B, H, T, T]: query i against offset row r
        B, H, T, _ = rel.shape
        skewed = F.pad(rel, (1, 0)).reshape(B, H, T + 1, T)[:, :, 1:, :]
        return skewed / math.sqrt(q.shape[-1])


class Rope(PositionalEncoding):
    """Rotary encoding along the sequence: pairs (2k, 2k+1) as complex numbers times e^(i t theta_k)."""

    def __init__(self, tokens, dh, base=10000.0):
        super().__init__()
        theta = base ** (-torch.arange(0, dh, 2, dtype=torch.float64) / dh)
        angle = torch.arange(tokens, dtype=torch.float64).unsqueeze(1) * theta
        self.register_buffer("rotation", torch.polar(torch.ones_like(angle), angle).to(torch.complex64))

    def rotate(self, q, k):
        def turn(x):
            pairs = torch.view_as_complex(x.float().reshape(*x.shape[:-1], -1, 2).contiguous())
            return torch.view_as_real(pairs * self.rotation).flatten(-2)
        return turn(q), turn(k)


class Alibi(PositionalEncoding):
    def __init__(self, tokens, heads):
        super().__init__()
        slopes = torch.tensor([2.0 ** (-8.0 * (h + 1) / heads) for h in range(heads)])
        distance = (torch.arange(tokens).unsqueeze(0) - torch.arange(tokens).unsqueeze(1)).abs().float()
        self.register_buffer("table", -slopes.view(-1, 1, 1) * distance)

    def bias(self, q, block):
        return self.table.unsqueeze(0)


def make_pe(kind, tokens=16, d=160, heads=1, blocks=4, sigma=0.2, variant="bias", dropout=0.0):
    side = int(round(math.sqrt(tokens)))
    if kind == "none":
        return NoPE()
    if kind == "learned":
        return Learned(tokens, d, blocks, sigma)
    if kind == "random_fixed":
        return RandomFixed(tokens, d, blocks)
    if kind == "sinusoidal_1d":
        pe = sinusoidal_1d(tokens, d)
    elif kind == "sinusoidal_2d":
        pe = sinusoidal_2d(side, side, d)
    elif kind == "relative":
        return MusicRelative(tokens, heads, d // heads, blocks) if variant == "music_causal" else \
            RelativeBias(tokens, heads, blocks)
    elif kind == "rope":
        return Rope(tokens, d // heads)
    elif kind == "alibi":
        return Alibi(tokens, heads)
    else:
        raise ValueError(f"no reference for PE '{kind}'")
    pe.dropout = dropout
    return pe


# ----- The model.
class Block(nn.Module):
    def __init__(self, d, heads, hidden):
        super().__init__()
        self.heads = heads
        self.in_proj = nn.Linear(d, 3 * d)
        self.out_proj = nn.Linear(d, d)
        self.norm1 = nn.LayerNorm(d)
        self.norm2 = nn.LayerNorm(d)
        self.fc1 = nn.Linear(d, hidden)
        self.fc2 = nn.Linear(hidden, d)

    def forward(self, x, pe, block):
        h = pe.add(x, block)
        B, T, d = h.shape
        q, k, v = (t.reshape(B, T, self.heads, -1).transpose(1, 2) for t in self.in_proj(h).chunk(3, dim=-1))
        q, k = pe.rotate(q, k)
        scores = q @ k.transpose(-1, -2) / math.sqrt(q.shape[-1])
        bias = pe.bias(q, block)
        if bias is not None:
            scores = scores + bias
        if pe.causal:
            scores = scores.masked_fill(torch.ones(T, T, dtype=torch.bool).triu(1), float("-inf"))
        attended = (scores.softmax(-1) @ v).transpose(1, 2).reshape(B, T, d)
        x = self.norm1(self.out_proj(attended) + h)
        return self.norm2(F.gelu(self.fc2(F.gelu(self.fc1(x)))) + x)


class PaperModel(nn.Module):
    def __init__(self, pe="learned", in_channels=5, d=160, blocks=4, heads=1, classes=4, tokens=16, **pe_args):
        super().__init__()
        self.embedding = nn.Linear(in_channels, d)
        self.pe = make_pe(pe, tokens, d, heads, blocks, **pe_args)
        self.blocks = nn.ModuleList(Block(d, heads, 4 * d) for _ in range(blocks))
        self.readout = nn.Linear(d, classes)

    def forward(self, x):
        h = self.embedding(x)
        for b, block in enumerate(self.blocks):
            h = block(h, self.pe, b)
        return self.readout(h[:, -1])


# ----- Parity with loci's C++ model: its tensor names mapped onto this model's.
def load_cpp_state(model, kind, state):
    mine = dict(model.named_parameters())
    mine.update(dict(model.named_buffers()))
    required = set(dict(model.named_parameters()))
    if kind == "random_fixed":
        required |= {name for name in mine if name.startswith("pe.table_")}
    loaded = set()
    for name, tensor in state.items():
        if name.startswith("encoder.pe."):
            stem, _, index = name[len("encoder.pe."):].rpartition("_")
            if kind in ("learned", "relative") and stem in ("pe", "table"):
                target = f"pe.tables.{index}"
            elif kind == "random_fixed" and stem == "pe":
                target = f"pe.table_{index}"
            else:
                continue  # a fixed table the reference computes itself
        elif name.startswith("encoder."):
            target = name[len("encoder."):].replace(".attention.", ".")
        elif name.startswith("head."):
            target = name[len("head."):]
        else:
            target = name
        if target not in mine:
            raise KeyError(f"C++ tensor '{name}' has no counterpart '{target}'")
        if mine[target].shape != tensor.shape:
            raise ValueError(f"'{name}': C++ shape {tuple(tensor.shape)}, reference {tuple(mine[target].shape)}")
        with torch.no_grad():
            mine[target].copy_(tensor)
        loaded.add(target)
    if required - loaded:
        raise KeyError(f"not set from C++: {sorted(required - loaded)}")


def run_parity(paths):
    for path in paths:
        case = torch.load(path)
        model = PaperModel(case["pe"], in_channels=case["x"].shape[-1], d=case["d_model"], blocks=case["blocks"],
                           heads=case["heads"], tokens=case["x"].shape[1], variant=case["variant"])
        load_cpp_state(model, case["pe"], case["state"])
        model.eval()
        with torch.no_grad():
            logits = model(case["x"])
        torch.save(logits, path + ".logits.pt")
        print(f"{path}: {case['pe']} {case['variant']} heads={case['heads']} logits {tuple(logits.shape)}")


# ----- Throughput of one training step, as bench/models/bench_model measures the C++ model.
def flops_per_step(batch=128, tokens=16, channels=5, d=160, blocks=4, classes=4):
    """Multiply-adds x 2 of the matrix products, forward x 3 for forward + backward (the embedding gets no input
    gradient, which this count ignores)."""
    n = batch * tokens
    per_block = 2 * n * d * 3 * d + 2 * n * d * d + 2 * 2 * n * d * 4 * d + 2 * 2 * batch * tokens * tokens * d
    forward = 2 * n * channels * d + blocks * per_block + 2 * batch * d * classes
    return 3 * forward


def seconds_per_step(step, steps, warmup, reps):
    """Best of `reps` rounds of `steps` calls after `warmup`: on a shared machine the fastest round is the one least
    disturbed."""
    for _ in range(warmup):
        step()
    seconds = float("inf")
    for _ in range(reps):
        start = time.perf_counter()
        for _ in range(steps):
            step()
        seconds = min(seconds, (time.perf_counter() - start) / steps)
    return seconds


def bench(threads_list, steps, warmup, reps, batch=128):
    torch.manual_seed(0)
    x = F.one_hot(torch.randint(0, 6, (batch, 16)), 6)[..., :5].float()
    y = torch.randint(0, 4, (batch,))
    for threads in threads_list:
        torch.set_num_threads(threads)
        model = PaperModel("learned", sigma=0.2)
        opt = torch.optim.AdamW(model.parameters(), lr=1e-4, weight_decay=0.0)

        def step():
            opt.zero_grad(set_to_none=True)
            F.cross_entropy(model(x), y).backward()
            opt.step()

        seconds = seconds_per_step(step, steps, warmup, reps)
        gflops = flops_per_step(batch) / seconds / 1e9
        print(f"RESULT impl=python threads={threads} ms_per_step={seconds * 1e3:.2f} "
              f"puzzles_per_s={batch / seconds:.0f} gflops={gflops:.1f}")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--parity", nargs="+", metavar="CASE")
    parser.add_argument("--bench", action="store_true")
    parser.add_argument("--threads", default="1,2")
    parser.add_argument("--steps", type=int, default=10)
    parser.add_argument("--reps", type=int, default=5)
    parser.add_argument("--warmup", type=int, default=3)
    args = parser.parse_args()
    if args.parity:
        run_parity(args.parity)
    elif args.bench:
        bench([int(t) for t in args.threads.split(",")], args.steps, args.warmup, args.reps)
    else:
        parser.print_help()
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
