// A fixed set of puzzles that generated items must stay far from (the paper keeps every training puzzle at Jaccard
// distance > 0.8 from all 108 human puzzles). The one-hots are packed as bitsets once, so checking a candidate
// costs two popcounts per reference word.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "sim/lst/puzzle.hpp"

namespace loci::sim::lst {

// A puzzle's N*N x (N+1) one-hot as bits, in one_hot()'s order.
struct OneHotBits {
  static constexpr int kWords = (kMaxCells * (kMaxN + 1) + 63) / 64;
  std::array<std::uint64_t, kWords> words{};
  int used_words = 0;
  int ones = 0;
};
OneHotBits one_hot_bits(const Puzzle& p);

class ReferenceSet {
 public:
  // All puzzles must share one N (std::invalid_argument otherwise).
  explicit ReferenceSet(std::vector<Puzzle> puzzles);

  int n() const { return n_; }
  std::size_t size() const { return puzzles_.size(); }
  const std::vector<Puzzle>& puzzles() const { return puzzles_; }

  // Smallest Jaccard distance from p to the set; 1 for an empty set.
  double min_distance(const Puzzle& p) const;
  // Every reference puzzle lies strictly farther than d from p; stops at the first that does not.
  bool all_farther_than(const Puzzle& p, double d) const;

 private:
  int n_ = 0;
  std::vector<Puzzle> puzzles_;
  std::vector<OneHotBits> bits_;
};

}  // namespace loci::sim::lst
