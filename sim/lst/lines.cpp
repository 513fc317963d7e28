#include "sim/lst/lines.hpp"

#include <stdexcept>
#include <string>

namespace loci::sim::lst {

namespace {

Lines build(int n, bool boxes) {
  Lines t;
  t.n = n;
  t.boxes = boxes;
  t.per_cell = boxes ? 3 : 2;
  t.count = t.per_cell * n;
  t.third = boxes ? static_cast<Mask>(0xFFFF) : static_cast<Mask>(0);
  const int side = box_side(n);
  for (int r = 0; r < n; ++r) {
    for (int c = 0; c < n; ++c) {
      const int i = r * n + c;
      t.cells[r][c] = static_cast<std::uint8_t>(i);
      t.cells[n + c][r] = static_cast<std::uint8_t>(i);
      t.of_cell[i][0] = static_cast<std::uint8_t>(r);
      t.of_cell[i][1] = static_cast<std::uint8_t>(n + c);
      t.of_cell[i][2] = static_cast<std::uint8_t>(kNoLine);
      if (boxes) {
        const int b = (r / side) * side + c / side;
        const int k = (r % side) * side + c % side;
        t.cells[2 * n + b][k] = static_cast<std::uint8_t>(i);
        t.of_cell[i][2] = static_cast<std::uint8_t>(2 * n + b);
      }
    }
  }
  return t;
}

struct AllLines {
  // [n - kMinN][boxes]
  std::array<std::array<Lines, 2>, kMaxN - kMinN + 1> table;
  AllLines() {
    for (int n = kMinN; n <= kMaxN; ++n) {
      table[n - kMinN][0] = build(n, false);
      if (box_side(n) != 0) table[n - kMinN][1] = build(n, true);
    }
  }
};

}  // namespace

const Lines& Lines::get(int n, bool boxes) {
  static const AllLines all;
  if (n < kMinN || n > kMaxN) throw std::invalid_argument("lst: N must be in 3..9, got " + std::to_string(n));
  if (boxes && box_side(n) == 0)
    throw std::invalid_argument("lst: Sudoku boxes need N to be a perfect square (4 or 9), got " + std::to_string(n));
  return all.table[n - kMinN][boxes ? 1 : 0];
}

}  // namespace loci::sim::lst
