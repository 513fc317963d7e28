// One Latin Square Task item at a time, by rejection sampling as in the paper: a random full square, cells blanked
// while deducible, a random blank as the target, then keep the item only if its class, givens, answer, distance
// from a reference set and uniqueness all check out. Every draw comes from the caller's Rng, so item i of a
// dataset depends only on its own stream.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <utility>

#include "core/option.hpp"
#include "sim/lst/classify.hpp"
#include "sim/lst/latin.hpp"
#include "sim/lst/puzzle.hpp"
#include "sim/lst/reference.hpp"
#include "sim/lst/removal.hpp"
#include "sim/random/stream.hpp"

namespace loci::sim::lst {

// Chainable like LibTorch's options: PuzzleOptions().n(4).min_givens(3).max_givens(11).reference(ref).
class PuzzleOptions {
  // Grid side, 3..9.
  LOCI_OPTION(int, n) = 4;
  // Sudoku boxes as extra lines (N = 4 or 9).
  LOCI_OPTION(bool, boxes) = false;
  // Givens (non-blank cells besides the target) kept, inclusive; the paper's 4x4 data span 3..11.
  LOCI_OPTION(int, min_givens) = 3;
  LOCI_OPTION(int, max_givens) = 11;
  // With a reference set, keep an item only if its Jaccard distance to every reference puzzle exceeds this.
  LOCI_OPTION(double, min_jaccard) = 0.8;
  LOCI_OPTION(std::shared_ptr<const ReferenceSet>, reference) = nullptr;
  // generate() gives up with std::runtime_error after this many attempts.
  LOCI_OPTION(std::uint64_t, max_attempts) = 1000000;
  LOCI_OPTION(LatinFill, fill) = LatinFill::restart_square;
  LOCI_OPTION(bool, shuffle_lines) = false;
  LOCI_OPTION(RemovalRule, removal) = RemovalRule::hidden_single;
  // Stop blanking at a number of filled cells drawn uniformly in [min_givens, max_givens], so the givens spread
  // over the range; false blanks as many cells as the removal rule allows.
  LOCI_OPTION(bool, random_stop) = true;
};

// Throws std::invalid_argument naming the first bad option.
void check(const PuzzleOptions& opt);

struct Item {
  Puzzle puzzle;     // target blank, answer set
  Cells solution{};  // the full square the puzzle was cut from
  Classification classification;
  int givens = 0;
  double reference_distance = 1.0;  // smallest Jaccard distance to the reference set, 1 without one
  std::uint64_t attempts = 0;       // attempts spent on this item
};

// One attempt: an item if it passes every check (class == wanted_condition, or any of the three classes when
// wanted_condition is -1), otherwise nothing.
std::optional<Item> try_generate(const PuzzleOptions& opt, Rng& rng, int wanted_condition = kNone);

// Attempts until an item passes; std::runtime_error after opt.max_attempts() attempts.
Item generate(const PuzzleOptions& opt, int wanted_condition, Rng& rng);

}  // namespace loci::sim::lst
