#include "sim/lst/puzzle.hpp"

#include <stdexcept>

#include "sim/lst/lines.hpp"

namespace loci::sim::lst {

int box_side(int n) {
  for (int s = 2; s * s <= n; ++s)
    if (s * s == n) return s;
  return 0;
}

int Puzzle::givens() const {
  int g = 0;
  for (int i = 0; i < size(); ++i) g += (cells[i] != 0 && i != target) ? 1 : 0;
  return g;
}

void validate(const Puzzle& p) {
  auto fail = [](const std::string& what) { throw std::invalid_argument("lst puzzle: " + what); };
  if (p.n < kMinN || p.n > kMaxN) fail("N must be in 3..9, got " + std::to_string(p.n));
  if (p.boxes && box_side(p.n) == 0) fail("boxes need N to be a perfect square, got N=" + std::to_string(p.n));
  for (int i = 0; i < kMaxCells; ++i) {
    if (i >= p.size() && p.cells[i] != 0) fail("cell " + std::to_string(i) + " lies outside the grid");
    if (p.cells[i] > p.n) fail("cell " + std::to_string(i) + " holds symbol " + std::to_string(p.cells[i]));
  }
  if (p.target < 0 || p.target >= p.size()) fail("target " + std::to_string(p.target) + " is not a cell of the grid");
  if (p.cells[p.target] != 0) fail("target cell " + std::to_string(p.target) + " is not blank");
  if (p.answer < 0 || p.answer > p.n) fail("answer " + std::to_string(p.answer) + " out of range");
}

void one_hot(const Puzzle& p, std::uint8_t* out) {
  const int ch = p.n + 1;
  for (int i = 0; i < p.size(); ++i) {
    std::uint8_t* cell = out + i * ch;
    for (int k = 0; k < ch; ++k) cell[k] = 0;
    if (i == p.target)
      cell[p.n] = 1;
    else if (p.cells[i] != 0)
      cell[p.cells[i] - 1] = 1;
  }
}

std::vector<std::uint8_t> one_hot(const Puzzle& p) {
  std::vector<std::uint8_t> v(static_cast<std::size_t>(p.size() * (p.n + 1)));
  one_hot(p, v.data());
  return v;
}

double jaccard_distance(const Puzzle& a, const Puzzle& b) {
  if (a.n != b.n) throw std::invalid_argument("lst: Jaccard distance between puzzles of different N");
  // Each non-blank cell sets exactly one channel, so the one-hot sets meet where two cells hold the same code.
  auto code = [](const Puzzle& p, int i) { return i == p.target ? p.n + 1 : static_cast<int>(p.cells[i]); };
  int both = 0, in_a = 0, in_b = 0;
  for (int i = 0; i < a.size(); ++i) {
    const int x = code(a, i), y = code(b, i);
    in_a += x != 0;
    in_b += y != 0;
    both += x != 0 && x == y;
  }
  const int either = in_a + in_b - both;
  return either == 0 ? 0.0 : 1.0 - static_cast<double>(both) / static_cast<double>(either);
}

namespace {

// Every line holds each symbol at most once; with `full`, every cell is filled too.
bool lines_ok(const Cells& cells, int n, bool boxes, bool full) {
  const Lines& lines = Lines::get(n, boxes);
  for (int l = 0; l < lines.count; ++l) {
    Mask seen = 0;
    for (int k = 0; k < n; ++k) {
      const int v = cells[lines.cells[l][k]];
      if (v == 0) {
        if (full) return false;
        continue;
      }
      if (v > n || (seen & bit(v))) return false;
      seen |= bit(v);
    }
  }
  return true;
}

}  // namespace

bool is_latin_square(const Cells& cells, int n, bool boxes) { return lines_ok(cells, n, boxes, true); }

bool is_consistent(const Puzzle& p) { return lines_ok(p.cells, p.n, p.boxes, false); }

bool is_completion_of(const Cells& solution, const Puzzle& p) {
  if (!is_latin_square(solution, p.n, p.boxes)) return false;
  for (int i = 0; i < p.size(); ++i)
    if (p.cells[i] != 0 && p.cells[i] != solution[i]) return false;
  return true;
}

std::string to_digits(const Puzzle& p) {
  std::string s(static_cast<std::size_t>(p.size()), '0');
  for (int i = 0; i < p.size(); ++i)
    s[static_cast<std::size_t>(i)] =
        i == p.target ? (p.n < 9 ? static_cast<char>('0' + p.n + 1) : '*') : static_cast<char>('0' + p.cells[i]);
  return s;
}

}  // namespace loci::sim::lst
