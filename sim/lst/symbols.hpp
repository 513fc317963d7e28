// Renaming symbols maps a Latin Square Task item to another valid item of the same class, givens and uniqueness:
// the generator uses it to balance answers exactly (the paper's labels are balanced).
#pragma once

#include "sim/lst/generate.hpp"

namespace loci::sim::lst {

// Exchanges symbols a and b everywhere in the item (puzzle, solution, answers). The distance to a reference set
// changes with the one-hot channels, so callers re-check it.
inline void swap_symbols(Item& item, int a, int b) {
  if (a == b) return;
  auto swap_in = [&](Cells& cells) {
    for (auto& c : cells) {
      if (c == a)
        c = static_cast<std::uint8_t>(b);
      else if (c == b)
        c = static_cast<std::uint8_t>(a);
    }
  };
  auto swap_value = [&](int& v) { v = v == a ? b : v == b ? a : v; };
  swap_in(item.puzzle.cells);
  swap_in(item.solution);
  swap_value(item.puzzle.answer);
  swap_value(item.classification.answer);
}

}  // namespace loci::sim::lst
