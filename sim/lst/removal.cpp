#include "sim/lst/removal.hpp"

#include <numeric>
#include <stdexcept>
#include <string>
#include <utility>

namespace loci::sim::lst {

namespace {

// The grid as bit masks, so "could another cell of this line hold v" is a few AND-NOTs instead of a scan of the
// line: removal runs on every attempt of the generator and was its hottest loop. Positions are bits: a row's
// blanks by column, a column's by row, a box's by its cells in reading order.
class Board {
 public:
  Board(const Cells& cells, int n, bool boxes) : n_(n), side_(boxes ? box_side(n) : 0) {
    for (int i = 0; i < n * n; ++i) {
      const int r = i / n, c = i % n;
      if (cells[i] == 0) {
        row_blank_[r] |= bit1(c);
        col_blank_[c] |= bit1(r);
        if (side_) box_blank_[box(r, c)] |= bit1(in_box(r, c));
      } else {
        set(r, c, cells[i]);
      }
    }
  }

  void blank(int r, int c, int v) {
    row_blank_[r] |= bit1(c);
    col_blank_[c] |= bit1(r);
    row_has_[v] &= static_cast<Mask>(~bit1(r));
    col_has_[v] &= static_cast<Mask>(~bit1(c));
    if (side_) {
      box_blank_[box(r, c)] |= bit1(in_box(r, c));
      box_has_[v] &= static_cast<Mask>(~bit1(box(r, c)));
    }
  }
  void fill(int r, int c, int v) {
    row_blank_[r] &= static_cast<Mask>(~bit1(c));
    col_blank_[c] &= static_cast<Mask>(~bit1(r));
    if (side_) box_blank_[box(r, c)] &= static_cast<Mask>(~bit1(in_box(r, c)));
    set(r, c, v);
  }

  // After blank(r, c, v): does some line through (r, c) leave v no other place?
  bool hidden_single(int r, int c, int v) const {
    Mask could = static_cast<Mask>(row_blank_[r] & ~bit1(c) & ~col_has_[v]);
    if (side_) could &= static_cast<Mask>(~box_cols_in_row(r, v));
    if (could == 0) return true;
    could = static_cast<Mask>(col_blank_[c] & ~bit1(r) & ~row_has_[v]);
    if (side_) could &= static_cast<Mask>(~box_rows_in_col(c, v));
    if (could == 0) return true;
    if (!side_) return false;
    const int b = box(r, c), r0 = (b / side_) * side_, c0 = (b % side_) * side_;
    could = static_cast<Mask>(box_blank_[b] & ~bit1(in_box(r, c)));
    for (int k = 0; k < n_; ++k) {
      const int rr = r0 + k / side_, cc = c0 + k % side_;
      if ((row_has_[v] & bit1(rr)) || (col_has_[v] & bit1(cc))) could &= static_cast<Mask>(~bit1(k));
    }
    return could == 0;
  }

  // Does some line through (r, c) have every other cell filled?
  bool naked_single(int r, int c) const {
    if ((row_blank_[r] & ~bit1(c)) == 0 || (col_blank_[c] & ~bit1(r)) == 0) return true;
    return side_ && (box_blank_[box(r, c)] & ~bit1(in_box(r, c))) == 0;
  }

 private:
  static Mask bit1(int k) { return static_cast<Mask>(1u << k); }
  int box(int r, int c) const { return (r / side_) * side_ + c / side_; }
  int in_box(int r, int c) const { return (r % side_) * side_ + c % side_; }
  void set(int r, int c, int v) {
    row_has_[v] |= bit1(r);
    col_has_[v] |= bit1(c);
    if (side_) box_has_[v] |= bit1(box(r, c));
  }
  // Columns of row r whose box holds v; rows of column c whose box holds v.
  Mask box_cols_in_row(int r, int v) const {
    Mask m = 0;
    const Mask span = static_cast<Mask>((1u << side_) - 1u);
    for (int k = 0; k < side_; ++k)
      if (box_has_[v] & bit1((r / side_) * side_ + k)) m |= static_cast<Mask>(span << (k * side_));
    return m;
  }
  Mask box_rows_in_col(int c, int v) const {
    Mask m = 0;
    const Mask span = static_cast<Mask>((1u << side_) - 1u);
    for (int k = 0; k < side_; ++k)
      if (box_has_[v] & bit1(k * side_ + c / side_)) m |= static_cast<Mask>(span << (k * side_));
    return m;
  }

  int n_, side_;
  std::array<Mask, kMaxN> row_blank_{}, col_blank_{}, box_blank_{};
  std::array<Mask, kMaxN + 1> row_has_{}, col_has_{}, box_has_{};  // by symbol
};

}  // namespace

int remove_cells(Cells& cells, int n, bool boxes, Rng& rng, int keep, RemovalRule rule) {
  if (n < kMinN || n > kMaxN || (boxes && box_side(n) == 0))
    throw std::invalid_argument("lst remove_cells: bad grid N=" + std::to_string(n) + (boxes ? " with boxes" : ""));
  Board board(cells, n, boxes);
  // The visiting order is a uniform random permutation drawn lazily (forward Fisher-Yates), so a removal that
  // stops early after a few cells draws only what it visits.
  std::array<int, kMaxCells> order{};
  std::iota(order.begin(), order.begin() + n * n, 0);

  int filled = 0;
  for (int i = 0; i < n * n; ++i) filled += cells[i] != 0;
  for (int k = 0; k < n * n && filled > keep; ++k) {
    std::swap(order[k], order[k + static_cast<int>(rng.below(static_cast<std::uint64_t>(n * n - k)))]);
    const int i = order[k], r = i / n, c = i % n;
    const int v = cells[i];
    if (v == 0) continue;
    board.blank(r, c, v);
    bool ok = false;
    switch (rule) {
      case RemovalRule::hidden_single:
        ok = board.hidden_single(r, c, v);
        break;
      case RemovalRule::naked_single:
        ok = board.naked_single(r, c);
        break;
      case RemovalRule::authors_code:
        ok = c != 0 || board.hidden_single(r, c, v);
        break;
    }
    if (ok) {
      cells[i] = 0;
      --filled;
    } else {
      board.fill(r, c, v);
    }
  }
  return filled;
}

}  // namespace loci::sim::lst
