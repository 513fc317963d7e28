#include "sim/lst/latin.hpp"

#include <numeric>
#include <stdexcept>
#include <string>

#include "sim/lst/lines.hpp"

namespace loci::sim::lst {

namespace {

// The fill keeps its own column and box masks (the row's is a running value): generation builds a square on every
// attempt, so this loop is worth keeping tight.
class Filler {
 public:
  Filler(int n, bool boxes) : n_(n), side_(boxes ? box_side(n) : 0) {}

  void clear(Cells& cells) {
    for (int i = 0; i < n_ * n_; ++i) cells[i] = 0;
    col_.fill(0);
    box_.fill(0);
  }

  // Fills row r cell by cell; false on a dead end, with the row undone.
  bool row(Cells& cells, int r, Rng& rng) {
    const Mask all = all_symbols(n_);
    Mask in_row = 0;
    for (int c = 0; c < n_; ++c) {
      const int b = side_ ? (r / side_) * side_ + c / side_ : 0;
      const Mask free = static_cast<Mask>(all & ~(in_row | col_[c] | (side_ ? box_[b] : 0)));
      if (free == 0) {
        undo(cells, r, c);
        return false;
      }
      const int s = nth_symbol(free, static_cast<int>(rng.below(static_cast<std::uint64_t>(popcount(free)))));
      cells[r * n_ + c] = static_cast<std::uint8_t>(s);
      in_row |= bit(s);
      col_[c] |= bit(s);
      if (side_) box_[b] |= bit(s);
    }
    return true;
  }

 private:
  void undo(Cells& cells, int r, int upto) {
    for (int c = 0; c < upto; ++c) {
      const Mask s = bit(cells[r * n_ + c]);
      col_[c] &= static_cast<Mask>(~s);
      if (side_) box_[(r / side_) * side_ + c / side_] &= static_cast<Mask>(~s);
      cells[r * n_ + c] = 0;
    }
  }

  int n_, side_;
  std::array<Mask, kMaxN> col_{}, box_{};
};

// A random order of 0..n-1 that keeps Sudoku bands (or stacks) together when side > 0.
std::array<int, kMaxN> line_order(int n, int side, Rng& rng) {
  std::array<int, kMaxN> order{};
  if (side == 0) {
    std::iota(order.begin(), order.begin() + n, 0);
    rng.shuffle(order.begin(), order.begin() + n);
    return order;
  }
  std::array<int, kMaxN> bands{};
  std::iota(bands.begin(), bands.begin() + side, 0);
  rng.shuffle(bands.begin(), bands.begin() + side);
  for (int b = 0; b < side; ++b) {
    std::array<int, kMaxN> within{};
    std::iota(within.begin(), within.begin() + side, 0);
    rng.shuffle(within.begin(), within.begin() + side);
    for (int k = 0; k < side; ++k) order[b * side + k] = bands[b] * side + within[k];
  }
  return order;
}

}  // namespace

Cells random_latin_square(int n, bool boxes, Rng& rng, LatinFill fill, bool shuffle_lines) {
  if (n < kMinN || n > kMaxN || (boxes && box_side(n) == 0))
    throw std::invalid_argument("lst random_latin_square: bad grid N=" + std::to_string(n) +
                                (boxes ? " with boxes" : ""));
  constexpr int kRowTries = 64;
  Filler filler(n, boxes);
  Cells cells{};
  for (bool done = false; !done;) {
    filler.clear(cells);
    done = true;
    for (int r = 0; r < n && done; ++r) {
      int tries = 0;
      while (!filler.row(cells, r, rng)) {
        if (fill == LatinFill::restart_square || ++tries == kRowTries) {
          done = false;
          break;
        }
      }
    }
  }
  if (!shuffle_lines) return cells;

  const int side = boxes ? box_side(n) : 0;
  const auto rows = line_order(n, side, rng);
  const auto cols = line_order(n, side, rng);
  Cells out{};
  for (int r = 0; r < n; ++r)
    for (int c = 0; c < n; ++c) out[r * n + c] = cells[rows[r] * n + cols[c]];
  return out;
}

}  // namespace loci::sim::lst
