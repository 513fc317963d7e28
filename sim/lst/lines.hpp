// The lines of a grid: its rows, columns and, for Sudoku, boxes. Every deduction in the task is "a symbol is missing
// from, or present in, a line", so removal, classification and the solver share these tables and per-line masks.
#pragma once

#include <array>
#include <cstdint>

#include "sim/lst/puzzle.hpp"

namespace loci::sim::lst {

// Lines are numbered rows 0..N-1, then columns N..2N-1, then boxes 2N..3N-1 when boxes are on. Without boxes a
// cell's third line is kNoLine, whose mask stays empty, so "what do the lines through this cell hold" is always
// three loads and no loop: that query is most of the work of generation.
constexpr int kNoLine = 3 * kMaxN;

struct Lines {
  int n = 0;
  bool boxes = false;
  int count = 0;     // 2N or 3N
  int per_cell = 0;  // 2 or 3
  Mask third = 0;    // all bits with boxes, none without: keeps kNoLine empty when placing branch-free
  std::array<std::array<std::uint8_t, kMaxN>, 3 * kMaxN> cells{};  // the N cells of each line
  std::array<std::array<std::uint8_t, 3>, kMaxCells> of_cell{};    // row, column, box or kNoLine of each cell

  // Shared read-only tables, built once for every (N, boxes); safe to call from many threads.
  static const Lines& get(int n, bool boxes);
};

// Which symbols each line already holds.
struct LineMasks {
  std::array<Mask, 3 * kMaxN + 1> used{};

  LineMasks() = default;
  LineMasks(const Lines& lines, const Cells& cells) {
    for (int i = 0; i < lines.n * lines.n; ++i)
      if (cells[i] != 0) place(lines, i, cells[i]);
  }
  // Symbols that the lines through cell i already hold.
  Mask seen(const Lines& lines, int i) const {
    const auto& l = lines.of_cell[i];
    return static_cast<Mask>(used[l[0]] | used[l[1]] | used[l[2]]);
  }
  // As seen(), leaving out one line (the one a deduction runs along).
  Mask seen_except(const Lines& lines, int i, int skip) const {
    Mask m = 0;
    for (int k = 0; k < lines.per_cell; ++k) {
      const int l = lines.of_cell[i][k];
      if (l != skip) m |= used[l];
    }
    return m;
  }
  void place(const Lines& lines, int i, int symbol) {
    const auto& l = lines.of_cell[i];
    used[l[0]] |= bit(symbol);
    used[l[1]] |= bit(symbol);
    used[l[2]] |= static_cast<Mask>(bit(symbol) & lines.third);
  }
  void lift(const Lines& lines, int i, int symbol) {
    const auto& l = lines.of_cell[i];
    used[l[0]] &= static_cast<Mask>(~bit(symbol));
    used[l[1]] &= static_cast<Mask>(~bit(symbol));
    used[l[2]] &= static_cast<Mask>(~bit(symbol));
  }
};

// Symbol sets have at most 9 bits, so counting them and picking their k-th member are table look-ups: both run
// for every cell of every square the generator builds (and __builtin_popcount is a library call without -mpopcnt,
// which is not part of the x86-64 baseline).
struct SymbolTables {
  std::array<std::uint8_t, 1u << kMaxN> count{};
  std::array<std::array<std::uint8_t, kMaxN>, 1u << kMaxN> nth{};
  constexpr SymbolTables() {
    for (unsigned m = 0; m < (1u << kMaxN); ++m) {
      int k = 0;
      for (int s = 0; s < kMaxN; ++s)
        if (m & (1u << s)) nth[m][k++] = static_cast<std::uint8_t>(s + 1);
      count[m] = static_cast<std::uint8_t>(k);
    }
  }
};
inline constexpr SymbolTables kSymbolTables{};

inline int popcount(Mask m) { return kSymbolTables.count[m & 0x1FFu]; }
// The k-th (0-based) symbol of m, k < popcount(m).
inline int nth_symbol(Mask m, int k) { return kSymbolTables.nth[m & 0x1FFu][k]; }
inline int popcount64(std::uint64_t x) {
  x = x - ((x >> 1) & 0x5555555555555555ull);
  x = (x & 0x3333333333333333ull) + ((x >> 2) & 0x3333333333333333ull);
  x = (x + (x >> 4)) & 0x0F0F0F0F0F0F0F0Full;
  return static_cast<int>((x * 0x0101010101010101ull) >> 56);
}
inline int lowest_symbol(Mask m) { return __builtin_ctz(m) + 1; }

}  // namespace loci::sim::lst
