#!/usr/bin/env python3
"""Latin Square Task item generator, written plainly in standard-library Python as a researcher would.

It follows the same procedure as loci's C++ version (sim/lst/): a random 4x4 Latin square filled row by row with a
restart on a dead end, cells removed in random order while each stays deducible from its row or its column, a random
blank as the target, the relational-complexity class, a uniqueness proof by exhaustive search, and the Jaccard
exclusion against the human puzzles. It is the yardstick for bench/lst/run.sh, not a second source of truth: the
random streams differ from the C++ ones, so items differ; only the procedure and its cost are the same.

Usage: lst_reference.py [--items K] [--seed S] [--human path/to/human_puzzles.csv] [--check]
"""
import argparse
import csv
import os
import random
import sys
import time

N = 4
TARGET = N + 1  # the digit that marks the target in the human puzzles file
CLASS_NAMES = ["Binary", "Ternary", "Quaternary"]


def row_of(cells, r):
    return [cells[r * N + c] for c in range(N)]


def col_of(cells, c):
    return [cells[r * N + c] for r in range(N)]


# ----- Latin square: cell by cell, random among the symbols its row and column allow; a dead end restarts the square.
def latin_square(rng):
    while True:
        cells = []
        dead_end = False
        for r in range(N):
            for c in range(N):
                used = set(cells[r * N:r * N + c]) | {cells[k * N + c] for k in range(r)}
                choices = [s for s in range(1, N + 1) if s not in used]
                if not choices:
                    dead_end = True
                    break
                cells.append(rng.choice(choices))
            if dead_end:
                break
        if not dead_end:
            return cells


# ----- Removal: a cell may go if its value v has no other possible place in its row, or none in its column.
def could_hold(cells, i, v):
    if cells[i] != 0:
        return False
    r, c = divmod(i, N)
    return v not in row_of(cells, r) and v not in col_of(cells, c)


def deducible(cells, i, v):
    r, c = divmod(i, N)
    others_in_row = [r * N + k for k in range(N) if k != c]
    others_in_col = [k * N + c for k in range(N) if k != r]
    by_row = not any(could_hold(cells, j, v) for j in others_in_row)
    by_col = not any(could_hold(cells, j, v) for j in others_in_col)
    return by_row or by_col


def remove_cells(solution, rng, keep):
    cells = list(solution)
    order = list(range(N * N))
    rng.shuffle(order)
    filled = N * N
    for i in order:
        if filled <= keep:
            break
        v = cells[i]
        cells[i] = 0
        if deducible(cells, i, v):
            filled -= 1
        else:
            cells[i] = v
    return cells


# ----- Classification (the target is blank in `cells`). Returns (class index or None, answer or None).
def classify(cells, target):
    r, c = divmod(target, N)
    symbols = set(range(1, N + 1))
    in_row = set(row_of(cells, r)) - {0}
    in_col = set(col_of(cells, c)) - {0}

    if len(symbols - in_row) == 1:
        return 0, (symbols - in_row).pop()
    if len(symbols - in_col) == 1:
        return 0, (symbols - in_col).pop()
    if len(symbols - in_row - in_col) == 1:
        return 1, (symbols - in_row - in_col).pop()

    # Hidden single in the row: q is missing from the row and sits in the column of every other blank of the row.
    blanks = [k for k in range(N) if k != c and cells[r * N + k] == 0]
    if len(blanks) >= 2:
        for q in sorted(symbols - in_row - in_col):
            if all(q in col_of(cells, k) for k in blanks):
                return 2, q
    # The same with rows and columns swapped.
    blanks = [k for k in range(N) if k != r and cells[k * N + c] == 0]
    if len(blanks) >= 2:
        for q in sorted(symbols - in_row - in_col):
            if all(q in row_of(cells, k) for k in blanks):
                return 2, q
    return None, None


# ----- Exhaustive search: which values does the target take over all Latin completions?
def candidates(cells, i):
    r, c = divmod(i, N)
    return set(range(1, N + 1)) - set(row_of(cells, r)) - set(col_of(cells, c))


def has_completion(cells):
    best, best_options = None, None
    for i in range(N * N):
        if cells[i] == 0:
            options = candidates(cells, i)
            if not options:
                return False
            if best is None or len(options) < len(best_options):
                best, best_options = i, options
    if best is None:
        return True
    for v in sorted(best_options):
        cells[best] = v
        if has_completion(cells):
            cells[best] = 0
            return True
    cells[best] = 0
    return False


def target_values(cells, target):
    values = []
    for v in sorted(candidates(cells, target)):
        trial = list(cells)
        trial[target] = v
        if has_completion(trial):
            values.append(v)
    return values


# ----- One-hot over 16 cells x 5 channels (symbols 1..4, then the target) and the Jaccard distance.
def one_hot(cells, target):
    vec = [0] * (N * N * (N + 1))
    for i, v in enumerate(cells):
        if i == target:
            vec[i * (N + 1) + N] = 1
        elif v != 0:
            vec[i * (N + 1) + v - 1] = 1
    return vec


def jaccard_distance(a, b):
    both = sum(1 for x, y in zip(a, b) if x and y)
    either = sum(1 for x, y in zip(a, b) if x or y)
    return 0.0 if either == 0 else 1.0 - both / either


def read_human(path):
    puzzles = []
    with open(path, newline="") as f:
        for row in csv.DictReader(f):
            digits = row["puzzles"].strip().zfill(N * N)
            cells = [int(d) for d in digits]
            target = cells.index(TARGET)
            cells[target] = 0
            puzzles.append((cells, target, CLASS_NAMES.index(row["condition"].strip()), int(row["solutions"])))
    return puzzles


# ----- The generator: one fresh attempt at a time until an item of the wanted class passes every check.
def generate(rng, wanted, reference, min_givens=3, max_givens=11, min_jaccard=0.8):
    while True:
        solution = latin_square(rng)
        keep = rng.randint(min_givens, max_givens)
        cells = remove_cells(solution, rng, keep)
        blanks = [i for i in range(N * N) if cells[i] == 0]
        if not blanks:
            continue
        target = rng.choice(blanks)
        givens = N * N - len(blanks)
        if not (min_givens <= givens <= max_givens):
            continue
        cls, answer = classify(cells, target)
        if cls != wanted or answer != solution[target]:
            continue
        vec = one_hot(cells, target)
        if any(jaccard_distance(vec, ref) <= min_jaccard for ref in reference):
            continue
        if target_values(cells, target) != [answer]:
            continue
        return cells, target, cls, answer


def main():
    here = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--items", type=int, default=600)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--human", default=f"{here}/plugins/lst_grid/data/human_puzzles.csv")
    ap.add_argument("--check", action="store_true", help="check the classifier on the human puzzles and exit")
    args = ap.parse_args()

    human = read_human(args.human)
    if args.check:
        bad = [(cells, t, c, a) for cells, t, c, a in human if classify(cells, t) != (c, a)]
        print(f"{len(human) - len(bad)}/{len(human)} human puzzles classified as stated")
        return 0 if not bad else 1

    reference = [one_hot(cells, t) for cells, t, _, _ in human]
    start = time.perf_counter()
    for i in range(args.items):
        rng = random.Random(args.seed * 1_000_003 + i)
        generate(rng, i % 3, reference)
    seconds = time.perf_counter() - start
    print(f"python items={args.items} seconds={seconds:.3f} items_per_s={args.items / seconds:.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
