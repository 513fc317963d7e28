// Small builders shared by the LST tests.
#pragma once

#include <string>

#include "sim/lst/csv.hpp"
#include "sim/lst/puzzle.hpp"

namespace lst_test {

// A puzzle from digits in the human file's convention (row-major, 0 blank, N+1 = target).
inline loci::sim::lst::Puzzle from_digits(const std::string& digits, int n = 4, bool boxes = false, int answer = 0) {
  loci::sim::lst::Puzzle p;
  p.n = n;
  p.boxes = boxes;
  p.answer = answer;
  for (int i = 0; i < n * n; ++i) {
    const int d = digits[static_cast<std::size_t>(i)] - '0';
    if (d == n + 1)
      p.target = i;
    else
      p.cells[i] = static_cast<std::uint8_t>(d);
  }
  return p;
}

inline std::string human_csv() { return std::string(LOCI_SOURCE_DIR) + "/plugins/lst_grid/data/human_puzzles.csv"; }

}  // namespace lst_test
