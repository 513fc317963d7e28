#include <catch2/catch.hpp>

#include "sim/lst/puzzle.hpp"
#include "tests/sim/lst/lst_helpers.hpp"

using namespace loci::sim::lst;
using lst_test::from_digits;

TEST_CASE("lst puzzle: givens exclude blanks and the target", "[lst]") {
  const Puzzle p = from_digits("0040405210200030");
  CHECK(p.target == 6);
  CHECK(p.givens() == 6);
  CHECK(to_digits(p) == "0040405210200030");
}

TEST_CASE("lst puzzle: one-hot has symbols then the target channel", "[lst]") {
  const Puzzle p = from_digits("1000050000000004");
  const auto v = one_hot(p);
  REQUIRE(v.size() == 80);
  int ones = 0;
  for (auto x : v) ones += x;
  CHECK(ones == 3);          // two symbols and the target
  CHECK(v[0 * 5 + 0] == 1);  // cell 0 holds 1
  CHECK(v[5 * 5 + 4] == 1);  // cell 5 is the target: only its last channel
  for (int k = 0; k < 4; ++k) CHECK(v[5 * 5 + k] == 0);
  CHECK(v[15 * 5 + 3] == 1);                             // cell 15 holds 4
  for (int k = 0; k < 5; ++k) CHECK(v[1 * 5 + k] == 0);  // a blank is all zeros
}

TEST_CASE("lst puzzle: Jaccard distance over the one-hot", "[lst]") {
  const Puzzle a = from_digits("1200500000000000");
  const Puzzle b = from_digits("1300500000000000");
  // A = {1@0, 2@1, T@4}, B = {1@0, 3@1, T@4}: 2 shared, 4 in the union.
  CHECK(jaccard_distance(a, b) == Approx(0.5));
  CHECK(jaccard_distance(a, a) == 0.0);
  CHECK(jaccard_distance(a, from_digits("0000000000000052")) == 1.0);
  Puzzle c = a;
  c.n = 5;
  CHECK_THROWS_AS(jaccard_distance(a, c), std::invalid_argument);
}

TEST_CASE("lst puzzle: validate names what is wrong", "[lst]") {
  Puzzle p = from_digits("1200500000000000");
  CHECK_NOTHROW(validate(p));
  p.target = 0;
  CHECK_THROWS_WITH(validate(p), Catch::Contains("not blank"));
  p = from_digits("1200500000000000");
  p.boxes = true;
  p.n = 5;
  CHECK_THROWS_WITH(validate(p), Catch::Contains("perfect square"));
}

TEST_CASE("lst puzzle: Latin and completion checks", "[lst]") {
  const Puzzle full = from_digits("1234341221434321");
  CHECK(is_latin_square(full.cells, 4, false));
  CHECK(is_latin_square(full.cells, 4, true));
  const Puzzle not_sudoku = from_digits("1234214334124321");
  CHECK(is_latin_square(not_sudoku.cells, 4, false));
  CHECK_FALSE(is_latin_square(not_sudoku.cells, 4, true));
  CHECK_FALSE(is_consistent(from_digits("1100500000000000")));
  CHECK(is_completion_of(full.cells, from_digits("1004000000005000")));
  CHECK_FALSE(is_completion_of(full.cells, from_digits("2004000000005000")));
}
