// Reader for the human-study puzzles file (plugins/lst_grid/data/human_puzzles.csv, see its README) and files of
// the same layout, such as the authors' generated_puzzle_data_*.csv.
#pragma once

#include <istream>
#include <string>
#include <vector>

#include "sim/lst/classify.hpp"
#include "sim/lst/puzzle.hpp"

namespace loci::sim::lst {

struct LabelledPuzzle {
  int id = -1;            // the ID column
  int lst_num = -1;       // the LST_num column, -1 when empty (as in the authors' generated files)
  int condition = kNone;  // kBinary, kTernary or kQuaternary, as stated in the file
  Puzzle puzzle;          // 4x4, target blank, answer = the solutions column
  int line = 0;           // the line of the file its row starts on
};

// Columns are found by header name (ID, LST_num, condition, puzzles, solutions; case and surrounding blanks
// ignored; other columns allowed). Fields may be quoted ("" inside quotes is a quote); blank lines are skipped;
// CRLF and a UTF-8 byte order mark are accepted. Any malformed row throws std::runtime_error whose message starts
// "<path>:<line>: ", e.g. "human_puzzles.csv:17: expected 16 digits in 'puzzles', got '12'".
std::vector<LabelledPuzzle> read_human_puzzles(const std::string& path);
// The same from a stream; `name` stands for the file in messages.
std::vector<LabelledPuzzle> parse_human_puzzles(std::istream& in, const std::string& name);

std::vector<Puzzle> puzzles_of(const std::vector<LabelledPuzzle>& rows);

}  // namespace loci::sim::lst
