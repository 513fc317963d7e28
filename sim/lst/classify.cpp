#include "sim/lst/classify.hpp"

#include <cctype>
#include <stdexcept>
#include <string>

#include "sim/lst/lines.hpp"

namespace loci::sim::lst {

namespace {

Classification found(int condition, Strategy s, int answer, int others = 0) {
  Classification c;
  c.condition = condition;
  c.strategy = s;
  c.answer = answer;
  c.others = others;
  return c;
}

// The symbol q that must go in the target along line l, or 0.
int hidden_single(const Lines& lines, const Cells& cells, const LineMasks& masks, int target, int l, Mask allowed,
                  int* others) {
  const int n = lines.n;
  Mask everywhere = all_symbols(n);  // symbols that every other blank of the line rules out
  int blanks = 0;
  for (int k = 0; k < n; ++k) {
    const int d = lines.cells[l][k];
    if (d == target || cells[d] != 0) continue;
    ++blanks;
    everywhere &= masks.seen_except(lines, d, l);
  }
  if (blanks < 2) return 0;
  const Mask q = static_cast<Mask>(everywhere & allowed & ~masks.used[l]);
  if (q == 0) return 0;
  *others = blanks;
  return lowest_symbol(q);
}

}  // namespace

Classification classify(const Puzzle& p) {
  const Lines& lines = Lines::get(p.n, p.boxes);
  // Only the target is checked here (the generator calls this on every attempt); validate() checks the rest.
  if (p.target < 0 || p.target >= p.size())
    throw std::invalid_argument("lst classify: target " + std::to_string(p.target) + " is not a cell of the grid");
  Cells cells = p.cells;
  cells[p.target] = 0;
  const LineMasks masks(lines, cells);
  const Mask all = all_symbols(p.n);
  const auto& through = lines.of_cell[p.target];

  static constexpr Strategy binary[3] = {Strategy::binary_row, Strategy::binary_col, Strategy::binary_box};
  for (int k = 0; k < lines.per_cell; ++k) {
    const Mask missing = static_cast<Mask>(all & ~masks.used[through[k]]);
    if (popcount(missing) == 1) return found(kBinary, binary[k], lowest_symbol(missing));
  }

  const Mask allowed = static_cast<Mask>(all & ~masks.seen(lines, p.target));
  if (popcount(allowed) == 1) return found(kTernary, Strategy::ternary, lowest_symbol(allowed));

  static constexpr Strategy quaternary[3] = {Strategy::quaternary_row, Strategy::quaternary_col,
                                             Strategy::quaternary_box};
  for (int k = 0; k < lines.per_cell; ++k) {
    int others = 0;
    const int q = hidden_single(lines, cells, masks, p.target, through[k], allowed, &others);
    if (q != 0) return found(kQuaternary, quaternary[k], q, others);
  }
  return Classification{};
}

const char* strategy_name(Strategy s) {
  switch (s) {
    case Strategy::binary_row:
      return "binary_row";
    case Strategy::binary_col:
      return "binary_col";
    case Strategy::binary_box:
      return "binary_box";
    case Strategy::ternary:
      return "ternary";
    case Strategy::quaternary_row:
      return "quaternary_row";
    case Strategy::quaternary_col:
      return "quaternary_col";
    case Strategy::quaternary_box:
      return "quaternary_box";
    case Strategy::none:
      break;
  }
  return "none";
}

std::string strategy_name(const Classification& c) {
  std::string s = strategy_name(c.strategy);
  if (c.condition == kQuaternary) s += "_" + std::to_string(c.others);
  return s;
}

const char* condition_name(int condition) {
  switch (condition) {
    case kBinary:
      return "Binary";
    case kTernary:
      return "Ternary";
    case kQuaternary:
      return "Quaternary";
    default:
      return "none";
  }
}

int condition_from_name(std::string_view name) {
  auto same = [&](std::string_view want) {
    if (name.size() != want.size()) return false;
    for (std::size_t i = 0; i < name.size(); ++i)
      if (std::tolower(static_cast<unsigned char>(name[i])) != std::tolower(static_cast<unsigned char>(want[i])))
        return false;
    return true;
  };
  for (int c : {kBinary, kTernary, kQuaternary})
    if (same(condition_name(c))) return c;
  return kNone;
}

}  // namespace loci::sim::lst
