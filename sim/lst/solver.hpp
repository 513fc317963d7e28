// Exact answers over every completion of a puzzle's grid into a full Latin square (Sudoku when boxes are on), by
// depth-first search on bitmasks. The target counts as one more blank. A grid whose givens break the rule simply
// has no completion; a malformed puzzle (see validate()) throws std::invalid_argument.
#pragma once

#include <cstdint>
#include <optional>

#include "sim/lst/puzzle.hpp"

namespace loci::sim::lst {

// The symbols the target takes over all completions (bit s-1 for symbol s); 0 when there is no completion.
Mask target_values(const Puzzle& p);

// True when every completion puts the same symbol in the target (and there is at least one); that symbol goes to
// *value when value is not null. Stops searching as soon as a second symbol turns up.
bool answer_is_unique(const Puzzle& p, int* value = nullptr);

// The number of completions, counting stops at `cap` (an empty 9x9 grid has about 5.5e27).
std::uint64_t count_completions(const Puzzle& p, std::uint64_t cap);

// One completion, if any.
std::optional<Cells> solve(const Puzzle& p);

}  // namespace loci::sim::lst
