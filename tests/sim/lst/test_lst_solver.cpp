#include <catch2/catch.hpp>
#include <functional>
#include <vector>

#include "sim/lst/latin.hpp"
#include "sim/lst/solver.hpp"
#include "tests/sim/lst/lst_helpers.hpp"

using namespace loci::sim;
using namespace loci::sim::lst;
using lst_test::from_digits;

namespace {

Puzzle empty(int n, bool boxes) {
  Puzzle p;
  p.n = n;
  p.boxes = boxes;
  p.target = 0;
  return p;
}

// Every full n x n grid, by plain recursion with no masks: an independent reference for the solver.
std::vector<Cells> all_squares(int n, bool boxes) {
  std::vector<Cells> out;
  Cells c{};
  std::function<void(int)> rec = [&](int i) {
    if (i == n * n) {
      if (is_latin_square(c, n, boxes)) out.push_back(c);
      return;
    }
    for (int v = 1; v <= n; ++v) {
      c[i] = static_cast<std::uint8_t>(v);
      Puzzle partial;
      partial.n = n;
      partial.boxes = boxes;
      partial.cells = c;
      if (is_consistent(partial)) rec(i + 1);
    }
    c[i] = 0;
  };
  rec(0);
  return out;
}

}  // namespace

TEST_CASE("lst solver: counts the known numbers of Latin squares", "[lst]") {
  CHECK(count_completions(empty(3, false), 1000) == 12);
  CHECK(count_completions(empty(4, false), 100000) == 576);
  CHECK(count_completions(empty(4, true), 100000) == 288);
  CHECK(count_completions(empty(5, false), 1000000) == 161280);
  CHECK(count_completions(empty(6, false), 1000) == 1000);  // capped
  CHECK(target_values(empty(4, false)) == 0xF);
  CHECK_FALSE(answer_is_unique(empty(4, false)));
}

TEST_CASE("lst solver: a grid with no completion has no answer", "[lst]") {
  const Puzzle p = from_digits("1250003000400000");  // the target's row holds 1,2 and its column 3,4
  CHECK(target_values(p) == 0);
  CHECK_FALSE(answer_is_unique(p));
  CHECK_FALSE(solve(p).has_value());
  CHECK(count_completions(from_digits("1150000000000000"), 10) == 0);  // a repeated given
}

TEST_CASE("lst solver: agrees with brute force over all 4x4 squares", "[lst]") {
  for (bool boxes : {false, true}) {
    const std::vector<Cells> squares = all_squares(4, boxes);
    REQUIRE(squares.size() == (boxes ? 288u : 576u));
    Rng rng = Rng::stream(5, "solver", boxes ? 1 : 0);
    for (int k = 0; k < 300; ++k) {
      // Random givens copied from a random square, so at least one completion exists; sometimes a wrong given.
      const Cells& from = squares[rng.below(squares.size())];
      Puzzle p;
      p.boxes = boxes;
      const int givens = static_cast<int>(rng.below(10));
      for (int g = 0; g < givens; ++g) {
        const auto i = rng.below(16);
        p.cells[i] = from[i];
      }
      if (k % 5 == 0) p.cells[rng.below(16)] = static_cast<std::uint8_t>(1 + rng.below(4));
      std::vector<int> blanks;
      for (int i = 0; i < 16; ++i)
        if (p.cells[i] == 0) blanks.push_back(i);
      if (blanks.empty()) continue;
      p.target = blanks[rng.below(blanks.size())];

      Mask expect = 0;
      std::uint64_t completions = 0;
      for (const Cells& s : squares) {
        bool fits = true;
        for (int i = 0; i < 16; ++i) fits = fits && (p.cells[i] == 0 || p.cells[i] == s[i]);
        if (fits) {
          expect |= bit(s[p.target]);
          ++completions;
        }
      }
      INFO(to_digits(p) << " boxes=" << boxes);
      REQUIRE(target_values(p) == expect);
      REQUIRE(count_completions(p, 1000000) == completions);
      int v = 0;
      REQUIRE(answer_is_unique(p, &v) == (__builtin_popcount(expect) == 1));
      if (__builtin_popcount(expect) == 1) REQUIRE(bit(v) == expect);
      const auto solved = solve(p);
      REQUIRE(solved.has_value() == (completions > 0));
      if (solved) REQUIRE(is_completion_of(*solved, p));
    }
  }
}

TEST_CASE("lst solver: 9x9 Sudoku with few givens solves fast", "[lst]") {
  Rng rng = Rng::stream(5, "sudoku9", 0);
  for (int k = 0; k < 5; ++k) {
    const Cells full = random_latin_square(9, true, rng, LatinFill::restart_row);
    Puzzle p;
    p.n = 9;
    p.boxes = true;
    p.cells = full;
    for (int i = 0; i < 81; ++i)
      if (rng.uniform() < 0.6) p.cells[i] = 0;
    p.cells[40] = 0;
    p.target = 40;
    const auto solved = solve(p);
    REQUIRE(solved.has_value());
    CHECK(is_completion_of(*solved, p));
    CHECK((target_values(p) & bit(full[40])) != 0);
  }
}
