#include "sim/lst/solver.hpp"

#include "sim/lst/lines.hpp"

namespace loci::sim::lst {

namespace {

// Branches where the fewest options remain: either a cell with the fewest allowed symbols, or a (line, symbol)
// with the fewest cells left for it, since every line must hold every symbol. The latter finds hidden singles and
// dead lines at once, which keeps 9x9 Sudoku searches short. Both split the completions into disjoint sets, so
// counting stays exact.
class Search {
 public:
  Search(const Puzzle& p, std::uint64_t cap)
      : lines_(Lines::get(p.n, p.boxes)), cells_(p.cells), masks_(lines_, cells_), cap_(cap) {}

  // Places v in cell i first; false if a line already holds it.
  bool preset(int i, int v) {
    if (masks_.seen(lines_, i) & bit(v)) return false;
    cells_[i] = static_cast<std::uint8_t>(v);
    masks_.place(lines_, i, v);
    return true;
  }
  // No line holds a symbol twice (the masks cannot tell, so look at the cells).
  bool consistent() const {
    for (int l = 0; l < lines_.count; ++l) {
      Mask seen = 0;
      for (int k = 0; k < lines_.n; ++k) {
        const int v = cells_[lines_.cells[l][k]];
        if (v == 0) continue;
        if (seen & bit(v)) return false;
        seen |= bit(v);
      }
    }
    return true;
  }

  void run() { dfs(); }
  std::uint64_t count() const { return count_; }
  const Cells& first() const { return first_; }

 private:
  struct Option {
    int cell;
    int symbol;
  };

  void dfs() {
    const int n = lines_.n;
    const Mask all = all_symbols(n);
    std::array<Mask, kMaxCells> allowed{};
    int best_cell = -1, best = n + 1;
    for (int i = 0; i < n * n; ++i) {
      if (cells_[i] != 0) continue;
      allowed[i] = static_cast<Mask>(all & ~masks_.seen(lines_, i));
      const int k = popcount(allowed[i]);
      if (k == 0) return;
      if (k < best) best = k, best_cell = i;
    }
    if (best_cell < 0) {
      if (count_++ == 0) first_ = cells_;
      return;
    }

    int best_line = -1, line_symbol = 0;
    for (int l = 0; l < lines_.count && best > 1; ++l) {
      const Mask missing = static_cast<Mask>(all & ~masks_.used[l]);
      for (Mask m = missing; m != 0; m &= static_cast<Mask>(m - 1)) {
        const int s = lowest_symbol(m);
        int places = 0;
        for (int k = 0; k < n; ++k) {
          const int d = lines_.cells[l][k];
          places += cells_[d] == 0 && (allowed[d] & bit(s));
        }
        if (places == 0) return;
        if (places < best) best = places, best_line = l, line_symbol = s;
      }
    }

    std::array<Option, kMaxN> options{};
    int count = 0;
    if (best_line >= 0) {
      for (int k = 0; k < n; ++k) {
        const int d = lines_.cells[best_line][k];
        if (cells_[d] == 0 && (allowed[d] & bit(line_symbol))) options[count++] = {d, line_symbol};
      }
    } else {
      for (Mask m = allowed[best_cell]; m != 0; m &= static_cast<Mask>(m - 1))
        options[count++] = {best_cell, lowest_symbol(m)};
    }
    for (int k = 0; k < count && count_ < cap_; ++k) {
      const Option o = options[k];
      cells_[o.cell] = static_cast<std::uint8_t>(o.symbol);
      masks_.place(lines_, o.cell, o.symbol);
      dfs();
      masks_.lift(lines_, o.cell, o.symbol);
      cells_[o.cell] = 0;
    }
  }

  const Lines& lines_;
  Cells cells_;
  LineMasks masks_;
  std::uint64_t cap_;
  std::uint64_t count_ = 0;
  Cells first_{};
};

bool completes_with(const Puzzle& p, int v) {
  Search s(p, 1);
  if (!s.consistent() || !s.preset(p.target, v)) return false;
  s.run();
  return s.count() > 0;
}

// Stops after `limit` values have been found.
Mask values_up_to(const Puzzle& p, int limit) {
  validate(p);
  Mask values = 0;
  int found = 0;
  for (int v = 1; v <= p.n && found < limit; ++v) {
    if (completes_with(p, v)) {
      values |= bit(v);
      ++found;
    }
  }
  return values;
}

}  // namespace

Mask target_values(const Puzzle& p) { return values_up_to(p, p.n); }

bool answer_is_unique(const Puzzle& p, int* value) {
  const Mask values = values_up_to(p, 2);
  if (popcount(values) != 1) return false;
  if (value) *value = lowest_symbol(values);
  return true;
}

std::uint64_t count_completions(const Puzzle& p, std::uint64_t cap) {
  validate(p);
  Search s(p, cap);
  if (cap == 0 || !s.consistent()) return 0;
  s.run();
  return s.count();
}

std::optional<Cells> solve(const Puzzle& p) {
  validate(p);
  Search s(p, 1);
  if (!s.consistent()) return std::nullopt;
  s.run();
  if (s.count() == 0) return std::nullopt;
  return s.first();
}

}  // namespace loci::sim::lst
