// Relational complexity of a puzzle: which kind of single-step deduction fixes its target, the paper's classes.
#pragma once

#include <string>
#include <string_view>

#include "sim/lst/puzzle.hpp"

namespace loci::sim::lst {

// Conditions as the paper labels them (and as models are scored per condition).
enum Condition : int { kNone = -1, kBinary = 0, kTernary = 1, kQuaternary = 2 };

enum class Strategy : std::uint8_t {
  none,
  binary_row,
  binary_col,
  binary_box,
  ternary,
  quaternary_row,
  quaternary_col,
  quaternary_box,
};

struct Classification {
  int condition = kNone;
  Strategy strategy = Strategy::none;
  int answer = 0;  // the symbol the deduction puts in the target, 0 for none
  int others = 0;  // quaternary only: blanks of the line besides the target, each ruled out by a line crossing it
  bool valid() const { return condition != kNone; }
};

// Decided in this order, on the grid with the target blank (a "line" is a row, a column, or a box when boxes are on):
//  Binary     one line through the target holds the N-1 other symbols: its row (binary_row), else its column
//             (binary_col), else its box (binary_box).
//  Ternary    the lines through the target together hold N-1 distinct symbols (ternary).
//  Quaternary a hidden single: along one line through the target (row, then column, then box) some symbol q that
//             the target's lines allow is missing from the line and every other blank cell of the line has q in a
//             line crossing it (for a row: its column or box; for a column: its row or box; for a box: its row or
//             column), so q must go in the target; the line must have at least 2 such other blanks. Symbols q are
//             tried in increasing order. Strategy quaternary_row / _col / _box, `others` = the number of other
//             blanks (named "quaternary_row_3" etc.).
//  none       anything else.
// In words: Binary needs one line, Ternary the lines crossing at the target, Quaternary a line plus at least two
// lines crossing it elsewhere. On 4x4 without boxes this is exactly the paper's (the authors' verify_LST.py): its
// hidden single requires the row to hold no symbol with all 3 other columns holding q, or one symbol with both
// other columns holding q, which are the cases of 3 and 2 other blanks. A hidden single through a single other
// blank (row with two givens) is left unclassified, as there. Requiring q to be allowed in the target, which the
// authors' code does not, only matters on a grid with no completion at all (q would have no place in the line).
// It agrees with the stated class and answer of all 108 human puzzles (tests/sim/lst).
Classification classify(const Puzzle& p);

// "binary_row", ..., "quaternary_box", "none".
const char* strategy_name(Strategy s);
// As above, with the count of other blanks for quaternary strategies: "quaternary_row_3", "quaternary_col_2".
std::string strategy_name(const Classification& c);
// "Binary", "Ternary", "Quaternary"; "none" for kNone.
const char* condition_name(int condition);
// Case-insensitive inverse of condition_name for the three classes; kNone for anything else.
int condition_from_name(std::string_view name);

}  // namespace loci::sim::lst
