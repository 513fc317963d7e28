// The Latin Square Task puzzle: an N x N grid (3 <= N <= 9), symbols 1..N, blanks, and one target cell whose symbol
// is the answer. Storage is fixed-size so a puzzle is a plain value: copying it in a generator's inner loop costs no
// allocation.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace loci::sim::lst {

constexpr int kMinN = 3;
constexpr int kMaxN = 9;
constexpr int kMaxCells = kMaxN * kMaxN;

// Row-major cells, 0 = blank, 1..N = symbols; entries past N*N stay 0.
using Cells = std::array<std::uint8_t, kMaxCells>;
// A set of symbols: bit s-1 stands for symbol s.
using Mask = std::uint16_t;

constexpr Mask all_symbols(int n) { return static_cast<Mask>((1u << n) - 1u); }
constexpr Mask bit(int symbol) { return static_cast<Mask>(1u << (symbol - 1)); }

// Side of a Sudoku box for N = 4 or 9, 0 for any N that is not a perfect square above 1.
int box_side(int n);

struct Puzzle {
  int n = 4;
  Cells cells{};    // the target cell is blank here: its symbol is `answer`
  int target = -1;  // cell index, row-major
  int answer = 0;   // 0 while unknown
  bool boxes = false;

  int size() const { return n * n; }
  std::uint8_t at(int row, int col) const { return cells[row * n + col]; }
  // Non-blank cells other than the target.
  int givens() const;
};

// Throws std::invalid_argument naming what is wrong: N out of range, boxes on a non-square N, a symbol out of
// range, a target that is not a blank cell of the grid, an answer out of range.
void validate(const Puzzle& p);

// N*N x (N+1) one-hot, row-major by cell: channels are the symbols 1..N then the target; a blank is all zeros and the
// target cell has only its target channel set.
std::vector<std::uint8_t> one_hot(const Puzzle& p);
void one_hot(const Puzzle& p, std::uint8_t* out);

// 1 - |A and B| / |A or B| over the flattened one-hots (0 when both are empty). Puzzles of different N are an error.
double jaccard_distance(const Puzzle& a, const Puzzle& b);

// A full grid (no blanks) whose rows, columns and, with boxes, boxes each hold every symbol once.
bool is_latin_square(const Cells& cells, int n, bool boxes);
// No symbol twice in a row, column or (with boxes) box; blanks allowed.
bool is_consistent(const Puzzle& p);
// `solution` is a valid full grid that agrees with every given of `p`.
bool is_completion_of(const Cells& solution, const Puzzle& p);

// N*N digits row-major, the target written as N+1 (the human puzzles file's convention): "0040405210200030";
// for N = 9, where N+1 is not a digit, the target is '*'.
std::string to_digits(const Puzzle& p);

}  // namespace loci::sim::lst
