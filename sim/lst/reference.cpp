#include "sim/lst/reference.hpp"

#include <stdexcept>
#include <string>

#include "sim/lst/lines.hpp"

namespace loci::sim::lst {

OneHotBits one_hot_bits(const Puzzle& p) {
  OneHotBits b;
  const int ch = p.n + 1;
  b.used_words = (p.size() * ch + 63) / 64;
  for (int i = 0; i < p.size(); ++i) {
    const int channel = i == p.target ? p.n : p.cells[i] - 1;
    if (channel < 0) continue;
    const int at = i * ch + channel;
    b.words[at / 64] |= std::uint64_t{1} << (at % 64);
    ++b.ones;
  }
  return b;
}

namespace {

// Same arithmetic as jaccard_distance(), so a threshold decides identically through either path.
double distance(const OneHotBits& a, const OneHotBits& b) {
  int both = 0;
  for (int w = 0; w < a.used_words; ++w) both += popcount64(a.words[w] & b.words[w]);
  const int either = a.ones + b.ones - both;
  return either == 0 ? 0.0 : 1.0 - static_cast<double>(both) / static_cast<double>(either);
}

}  // namespace

ReferenceSet::ReferenceSet(std::vector<Puzzle> puzzles) : puzzles_(std::move(puzzles)) {
  if (!puzzles_.empty()) n_ = puzzles_.front().n;
  bits_.reserve(puzzles_.size());
  for (const Puzzle& p : puzzles_) {
    if (p.n != n_)
      throw std::invalid_argument("lst: reference puzzles mix N=" + std::to_string(n_) +
                                  " and N=" + std::to_string(p.n));
    bits_.push_back(one_hot_bits(p));
  }
}

double ReferenceSet::min_distance(const Puzzle& p) const {
  if (!puzzles_.empty() && p.n != n_)
    throw std::invalid_argument("lst: a " + std::to_string(p.n) + "x" + std::to_string(p.n) +
                                " puzzle compared with reference puzzles of N=" + std::to_string(n_));
  const OneHotBits a = one_hot_bits(p);
  double best = 1.0;
  for (const OneHotBits& b : bits_) {
    const double d = distance(a, b);
    if (d < best) best = d;
  }
  return best;
}

bool ReferenceSet::all_farther_than(const Puzzle& p, double d) const {
  if (!puzzles_.empty() && p.n != n_)
    throw std::invalid_argument("lst: a " + std::to_string(p.n) + "x" + std::to_string(p.n) +
                                " puzzle compared with reference puzzles of N=" + std::to_string(n_));
  const OneHotBits a = one_hot_bits(p);
  for (const OneHotBits& b : bits_)
    if (!(distance(a, b) > d)) return false;
  return true;
}

}  // namespace loci::sim::lst
