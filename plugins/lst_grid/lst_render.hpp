// Draws one stored sample as a grid for `loci inspect --show N`.
#pragma once

#include <string>

#include "datasets/spec.hpp"

namespace loci::lst_grid {

// e.g.
//   Ternary (ternary), answer 3, givens 7
//   1 . 4 .
//   . ? . 2
std::string render_puzzle(int n, const datasets::SampleSlots& sample);

}  // namespace loci::lst_grid
