#include <omp.h>

#include <catch2/catch.hpp>
#include <set>
#include <vector>

#include "sim/lst/csv.hpp"
#include "sim/lst/generate.hpp"
#include "sim/lst/solver.hpp"
#include "tests/sim/lst/lst_helpers.hpp"

using namespace loci::sim;
using namespace loci::sim::lst;

namespace {

std::shared_ptr<const ReferenceSet> human_reference() {
  static const auto ref = std::make_shared<const ReferenceSet>(puzzles_of(read_human_puzzles(lst_test::human_csv())));
  return ref;
}

// Everything a user relies on, re-derived from scratch rather than trusted from the generator.
void recheck(const Item& item, const PuzzleOptions& opt, int wanted) {
  const Puzzle& p = item.puzzle;
  INFO(to_digits(p) << " answer " << p.answer << " class " << item.classification.condition);
  REQUIRE_NOTHROW(validate(p));
  REQUIRE(p.n == opt.n());
  REQUIRE(p.boxes == opt.boxes());
  REQUIRE(is_latin_square(item.solution, p.n, p.boxes));
  REQUIRE(is_completion_of(item.solution, p));
  REQUIRE(p.answer == item.solution[p.target]);
  int v = 0;
  REQUIRE(answer_is_unique(p, &v));
  REQUIRE(v == p.answer);
  const Classification c = classify(p);
  REQUIRE(c.condition != kNone);
  if (wanted != kNone) REQUIRE(c.condition == wanted);
  REQUIRE(c.condition == item.classification.condition);
  REQUIRE(c.answer == p.answer);
  REQUIRE(p.givens() == item.givens);
  REQUIRE(item.givens >= opt.min_givens());
  REQUIRE(item.givens <= opt.max_givens());
}

bool same(const Item& a, const Item& b) {
  return a.puzzle.cells == b.puzzle.cells && a.puzzle.target == b.puzzle.target && a.puzzle.answer == b.puzzle.answer &&
         a.solution == b.solution && a.attempts == b.attempts;
}

}  // namespace

TEST_CASE("lst generate: paper setting - every item re-checked - far from the human puzzles", "[lst][generate]") {
  const auto ref = human_reference();
  const PuzzleOptions opt = PuzzleOptions().n(4).min_givens(3).max_givens(11).min_jaccard(0.8).reference(ref);
  for (int wanted : {kBinary, kTernary, kQuaternary}) {
    std::set<int> givens;
    std::set<std::string> strategies;
    for (std::uint64_t i = 0; i < 200; ++i) {
      Rng rng = Rng::stream(2024, "train", i * 3 + static_cast<std::uint64_t>(wanted));
      const Item item = generate(opt, wanted, rng);
      recheck(item, opt, wanted);
      for (const Puzzle& h : ref->puzzles()) REQUIRE(jaccard_distance(item.puzzle, h) > 0.8);
      REQUIRE(item.reference_distance > 0.8);
      givens.insert(item.givens);
      strategies.insert(strategy_name(item.classification));
    }
    CHECK(givens.size() >= 4);  // the givens spread over the range
    if (wanted == kBinary) CHECK(strategies == std::set<std::string>{"binary_row", "binary_col"});
    if (wanted == kQuaternary) CHECK(strategies.size() >= 3);
  }
}

TEST_CASE("lst generate: any class - Sudoku boxes - other removal rules", "[lst][generate]") {
  std::vector<PuzzleOptions> setups = {
      PuzzleOptions(),
      PuzzleOptions().boxes(true),
      PuzzleOptions().removal(RemovalRule::authors_code).reference(human_reference()),
      PuzzleOptions().shuffle_lines(true).fill(LatinFill::restart_row).min_givens(5).max_givens(8),
      PuzzleOptions().random_stop(false).max_givens(15),
  };
  for (std::size_t s = 0; s < setups.size(); ++s) {
    std::set<int> classes;
    for (std::uint64_t i = 0; i < 90; ++i) {
      Rng rng = Rng::stream(99, "setup", s * 1000 + i);
      const int wanted = i < 60 ? static_cast<int>(i % 3) : kNone;
      const Item item = generate(setups[s], wanted, rng);
      recheck(item, setups[s], wanted);
      classes.insert(item.classification.condition);
    }
    INFO("setup " << s);
    CHECK(classes.size() == 3);
  }
}

TEST_CASE("lst generate: the authors' removal reaches 3 givens", "[lst][generate]") {
  const PuzzleOptions opt = PuzzleOptions().removal(RemovalRule::authors_code).min_givens(3).max_givens(3);
  Rng rng = Rng::stream(1, "three", 0);
  const Item item = generate(opt, kQuaternary, rng);
  recheck(item, opt, kQuaternary);
}

TEST_CASE("lst generate: the same (seed - index) gives the same item", "[lst][generate]") {
  const PuzzleOptions opt = PuzzleOptions().reference(human_reference());
  for (std::uint64_t i = 0; i < 20; ++i) {
    Rng a = Rng::stream(5, "train", i), b = Rng::stream(5, "train", i);
    REQUIRE(same(generate(opt, static_cast<int>(i % 3), a), generate(opt, static_cast<int>(i % 3), b)));
  }
  Rng a = Rng::stream(5, "train", 0), b = Rng::stream(5, "train", 1), c = Rng::stream(5, "test", 0);
  const Item x = generate(opt, kTernary, a), y = generate(opt, kTernary, b), z = generate(opt, kTernary, c);
  CHECK_FALSE(same(x, y));
  CHECK_FALSE(same(x, z));
}

TEST_CASE("lst generate: OpenMP with 1 and 2 threads gives identical items", "[lst][generate]") {
  const PuzzleOptions opt = PuzzleOptions().reference(human_reference());
  const int count = 96;
  auto run = [&](int threads) {
    std::vector<Item> items(count);
#pragma omp parallel for num_threads(threads) schedule(dynamic, 1)
    for (int i = 0; i < count; ++i) {
      Rng rng = Rng::stream(77, "train", static_cast<std::uint64_t>(i));
      items[static_cast<std::size_t>(i)] = generate(opt, i % 3, rng);
    }
    return items;
  };
  const auto one = run(1), two = run(2);
  for (int i = 0; i < count; ++i) REQUIRE(same(one[static_cast<std::size_t>(i)], two[static_cast<std::size_t>(i)]));
}

TEST_CASE("lst generate: 6x6 and 9x9 Sudoku items are valid", "[lst][generate]") {
  const PuzzleOptions six =
      PuzzleOptions().n(6).fill(LatinFill::restart_row).min_givens(8).max_givens(30).max_attempts(200000);
  for (std::uint64_t i = 0; i < 9; ++i) {
    Rng rng = Rng::stream(6, "six", i);
    recheck(generate(six, static_cast<int>(i % 3), rng), six, static_cast<int>(i % 3));
  }
  const PuzzleOptions nine =
      PuzzleOptions().n(9).boxes(true).fill(LatinFill::restart_row).min_givens(20).max_givens(60).max_attempts(200000);
  for (std::uint64_t i = 0; i < 6; ++i) {
    Rng rng = Rng::stream(9, "nine", i);
    const int wanted = i < 3 ? static_cast<int>(i) : kNone;
    const Item item = generate(nine, wanted, rng);
    recheck(item, nine, wanted);
    REQUIRE(is_latin_square(item.solution, 9, true));
  }
}

TEST_CASE("lst generate: bad options and impossible requests say why", "[lst][generate]") {
  Rng rng(1);
  CHECK_THROWS_WITH(generate(PuzzleOptions().n(10), kNone, rng), Catch::Contains("n must be in 3..9"));
  CHECK_THROWS_WITH(generate(PuzzleOptions().n(6).boxes(true).max_givens(20), kNone, rng),
                    Catch::Contains("boxes need n = 4 or 9"));
  CHECK_THROWS_WITH(generate(PuzzleOptions().min_givens(9).max_givens(4), kNone, rng), Catch::Contains("givens range"));
  CHECK_THROWS_WITH(generate(PuzzleOptions().n(5).reference(human_reference()), kNone, rng),
                    Catch::Contains("reference puzzles have N=4"));
  CHECK_THROWS_WITH(generate(PuzzleOptions(), 3, rng), Catch::Contains("wanted condition"));
  // With 15 givens only the target is blank: always Binary, never Quaternary.
  const PuzzleOptions impossible = PuzzleOptions().min_givens(15).max_givens(15).max_attempts(50);
  CHECK_THROWS_WITH(generate(impossible, kQuaternary, rng), Catch::Contains("no Quaternary item after 50 attempts"));
  CHECK_FALSE(try_generate(impossible, rng, kQuaternary).has_value());
}
