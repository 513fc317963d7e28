// Blanking cells of a full square, the paper's way: visit the cells in random order and blank each one whose symbol
// stays deducible at that moment.
#pragma once

#include "sim/lst/puzzle.hpp"
#include "sim/random/stream.hpp"

namespace loci::sim::lst {

// When cell i, holding v, may be blanked. Each rule is checked on the grid with i already blank, once, when i is
// visited; later removals can undo an earlier deduction and are not re-checked (as in the authors' code). What the
// final item needs (a unique answer) is proved afterwards by the exact solver, so this rule only shapes the
// distribution of puzzles.
enum class RemovalRule {
  // The paper's "deducible from its row or its column" read as the authors' code intends: some line through i
  // (its row, its column, or its box when boxes are on) leaves v no other place: every other cell of that line is
  // either filled or blank with v already present in another line through it. This is a hidden single along that
  // line; the line holding all N-1 other symbols is the special case with no blank.
  hidden_single,
  // The narrow reading: some line through i holds the N-1 other symbols (all its other cells are filled).
  naked_single,
  // What the authors' released generate_sudoku.py actually does: its test for "this other cell could hold v" looks
  // for v along that cell's own column and row and skips only cell i itself, but it spots cell i by comparing an
  // integer with a float index, which matches only for cells of column 0. Elsewhere cell i (still holding v when
  // tested) is always seen, the check passes, and the cell is blanked. So: cells outside column 0 are always
  // blanked, column-0 cells follow hidden_single. This is what lets their data reach 3 givens; hidden_single rarely
  // goes below 5 on 4x4.
  authors_code,
};

// Blanks cells of `cells` (a full square) until `keep` filled cells remain or every cell has been visited. Returns
// the number of filled cells left. keep = 0 removes as much as the rule allows (the authors' run stops at a fixed
// count; drawing `keep` at random per puzzle spreads the givens over a range instead).
int remove_cells(Cells& cells, int n, bool boxes, Rng& rng, int keep, RemovalRule rule = RemovalRule::hidden_single);

}  // namespace loci::sim::lst
