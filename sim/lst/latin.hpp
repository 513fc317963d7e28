// Random complete Latin squares (optionally Sudoku), filled row by row, cell by cell: each cell takes a symbol drawn
// uniformly among those its lines still allow. A cell with no symbol left is a dead end.
#pragma once

#include "sim/lst/puzzle.hpp"
#include "sim/random/stream.hpp"

namespace loci::sim::lst {

enum class LatinFill {
  // The paper's authors: a dead end throws the whole square away. A 4x4 square succeeds 60% of the time (0.1 us
  // per square here); the success rate falls with N, to 28 us per 9x9 square and 0.1 ms per 9x9 Sudoku.
  restart_square,
  // A dead end redraws only the current row; after 64 failed tries of one row (a Sudoku band can be left with no
  // completion) the square starts over. About 1-2 us per 9x9 square, Sudoku included; its law differs from the
  // authors' (see below).
  restart_row,
};

// Neither rule is uniform over Latin squares. Under restart_square a square's probability is proportional to the
// product over its cells of 1/(symbols allowed when the cell was filled); restart_row normalises that row by row.
// Exact enumeration for 4x4 puts the most likely square 12x above the least likely with either rule (restart_square:
// 0.28/576 .. 3.35/576). The paper's data were drawn this way, so it is the default. `shuffle_lines` then permutes
// rows and columns at random (within bands and stacks, and bands and stacks themselves, when boxes are on); as the
// fill already treats symbols alike, every square of an isotopy class becomes equally likely, and for 4x4 the two
// classes get 0.233 and 0.767 of the mass against 0.25 and 0.75 under the uniform law.
Cells random_latin_square(int n, bool boxes, Rng& rng, LatinFill fill = LatinFill::restart_square,
                          bool shuffle_lines = false);

}  // namespace loci::sim::lst
