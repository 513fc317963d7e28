// Puzzles read from files instead of generated (lst.source: file): a pool of labelled puzzles in the authors' CSV
// layout (builtin:authors = the 9,000 the paper trained and tested on), each row checked once, and every split
// drawn from it by seed, without replacement, stratified by class as generated splits are.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "sim/lst/csv.hpp"
#include "sim/lst/puzzle.hpp"
#include "sim/lst/reference.hpp"

namespace loci::lst_grid {

struct PoolPuzzle {
  sim::lst::LabelledPuzzle row;
  std::string file;             // where it was read, for messages and the card
  sim::lst::Cells solution{};   // its one Latin-square completion
  bool class_confirmed = true;  // the classifier reads the stated class
};

struct PuzzlePool {
  std::vector<PoolPuzzle> puzzles;
  std::map<std::string, std::vector<std::size_t>> splits;  // split -> the pool index of each of its samples
};

struct PoolRequest {
  std::vector<std::string> files;                            // CSV paths or builtin:authors
  const sim::lst::ReferenceSet* exclude = nullptr;           // puzzles the pool must stay away from, or none
  double min_jaccard = 0;                                    // ... farther than this Jaccard distance
  std::vector<std::pair<std::string, std::int64_t>> splits;  // split -> count, in the order written
  std::vector<double> class_weights{1, 1, 1};                // Binary, Ternary, Quaternary
  std::uint64_t seed = 0;
};

// The pool and its splits. std::runtime_error "<file>:<line>: ..." for a malformed row, a puzzle no Latin square
// completes or whose answer is not unique or not the one stated, a puzzle that repeats an earlier one, or one within
// min_jaccard of an excluded puzzle; and for splits asking for more puzzles of a class than the files hold.
PuzzlePool load_pool(const PoolRequest& request);

// The CSV text of the authors' generated puzzles of one class (kBinary, kTernary, kQuaternary), compiled in.
const char* authors_puzzles_csv(int condition);

constexpr const char* kBuiltinAuthors = "builtin:authors";

}  // namespace loci::lst_grid
