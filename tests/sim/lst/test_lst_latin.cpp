#include <catch2/catch.hpp>
#include <map>
#include <vector>

#include "sim/lst/latin.hpp"
#include "sim/lst/removal.hpp"

using namespace loci::sim;
using namespace loci::sim::lst;

TEST_CASE("lst latin: every N and fill gives a Latin square", "[lst]") {
  for (int n = kMinN; n <= kMaxN; ++n) {
    for (LatinFill fill : {LatinFill::restart_square, LatinFill::restart_row}) {
      if (fill == LatinFill::restart_square && n > 6) continue;  // possible, but slow by design
      for (bool shuffle : {false, true}) {
        Rng rng = Rng::stream(7, "latin", static_cast<std::uint64_t>(n));
        for (int k = 0; k < 20; ++k) {
          const Cells c = random_latin_square(n, false, rng, fill, shuffle);
          INFO("n=" << n << " fill=" << static_cast<int>(fill) << " shuffle=" << shuffle);
          REQUIRE(is_latin_square(c, n, false));
        }
      }
    }
  }
}

TEST_CASE("lst latin: Sudoku squares respect their boxes", "[lst]") {
  for (int n : {4, 9}) {
    Rng rng = Rng::stream(7, "sudoku", static_cast<std::uint64_t>(n));
    for (int k = 0; k < 20; ++k) {
      const LatinFill fill = n == 4 ? LatinFill::restart_square : LatinFill::restart_row;
      const Cells c = random_latin_square(n, true, rng, fill, k % 2 == 1);
      REQUIRE(is_latin_square(c, n, true));
    }
  }
}

TEST_CASE("lst latin: 4x4 restart_square follows the authors' law exactly", "[lst]") {
  // Under the authors' fill a square's probability is proportional to the product over its cells of
  // 1/(symbols allowed at that cell when it was filled). Compare the observed counts with that law (chi-square).
  Rng rng = Rng::stream(11, "coverage", 0);
  std::map<Cells, int> seen;
  const int draws = 60000;
  for (int k = 0; k < draws; ++k) ++seen[random_latin_square(4, false, rng)];
  REQUIRE(seen.size() == 576);

  std::map<Cells, double> weight;
  double total = 0;
  for (const auto& kv : seen) {
    const Cells& c = kv.first;
    double w = 1;
    for (int i = 0; i < 16; ++i) {
      Mask used = 0;
      for (int k = 0; k < i % 4; ++k) used |= bit(c[i - i % 4 + k]);
      for (int k = i % 4; k < i; k += 4) used |= bit(c[k]);
      w /= 4 - __builtin_popcount(used);
    }
    weight[c] = w;
    total += w;
  }
  double chi2 = 0;
  for (const auto& kv : seen) {
    const double expect = draws * weight[kv.first] / total;
    chi2 += (kv.second - expect) * (kv.second - expect) / expect;
  }
  // 575 degrees of freedom: mean 575, sd 34; a uniform law instead gives a chi-square in the tens of thousands.
  CHECK(chi2 < 575 + 6 * 34);
}

TEST_CASE("lst removal: hidden_single blanks only cells deducible along a line", "[lst]") {
  Rng rng = Rng::stream(3, "removal", 0);
  for (int k = 0; k < 200; ++k) {
    const Cells full = random_latin_square(4, false, rng);
    Cells c = full;
    const int filled = remove_cells(c, 4, false, rng, 0, RemovalRule::hidden_single);
    int count = 0;
    for (int i = 0; i < 16; ++i) {
      count += c[i] != 0;
      if (c[i] != 0) REQUIRE(c[i] == full[i]);
    }
    REQUIRE(count == filled);
    // The last cell blanked needed each of the 3 other cells of its line blocked by a distinct filled cell.
    REQUIRE(filled >= 3);
  }
}

TEST_CASE("lst removal: keep stops early and naked_single keeps full lines", "[lst]") {
  Rng rng = Rng::stream(3, "removal", 1);
  for (int k = 0; k < 100; ++k) {
    Cells c = random_latin_square(4, false, rng);
    CHECK(remove_cells(c, 4, false, rng, 10, RemovalRule::hidden_single) >= 10);
    Cells d = random_latin_square(4, false, rng);
    const int left = remove_cells(d, 4, false, rng, 0, RemovalRule::naked_single);
    // Each removal needs a line through the cell that is still full, and then leaves it not full: at most one
    // removal per line, 2N in all.
    CHECK(left >= 16 - 8);
  }
}

TEST_CASE("lst removal: authors_code always blanks cells outside column 0", "[lst]") {
  Rng rng = Rng::stream(3, "removal", 2);
  for (int k = 0; k < 100; ++k) {
    Cells c = random_latin_square(4, false, rng);
    remove_cells(c, 4, false, rng, 0, RemovalRule::authors_code);
    for (int r = 0; r < 4; ++r)
      for (int col = 1; col < 4; ++col) REQUIRE(c[r * 4 + col] == 0);
  }
}

namespace {

// The removal rules written the slow, obvious way, on the visiting order remove_cells draws from the same stream
// (a forward Fisher-Yates, one draw per visited cell).
Cells slow_removal(Cells cells, int n, bool boxes, Rng rng, int keep, RemovalRule rule) {
  const int side = boxes ? box_side(n) : 0;
  auto same_line = [&](int a, int b, int kind) {
    if (kind == 0) return a / n == b / n;
    if (kind == 1) return a % n == b % n;
    return side && (a / n / side == b / n / side) && (a % n / side == b % n / side);
  };
  auto could_hold = [&](int d, int v) {
    if (cells[d] != 0) return false;
    for (int e = 0; e < n * n; ++e)
      for (int kind = 0; kind < 3; ++kind)
        if (e != d && cells[e] == v && same_line(d, e, kind)) return false;
    return true;
  };
  std::vector<int> order(static_cast<std::size_t>(n * n));
  for (int i = 0; i < n * n; ++i) order[static_cast<std::size_t>(i)] = i;
  int filled = n * n;
  for (std::size_t k = 0; k < order.size(); ++k) {
    if (filled <= keep) break;
    std::swap(order[k], order[k + rng.below(order.size() - k)]);
    const int i = order[k];
    const int v = cells[i];
    cells[i] = 0;
    bool ok = false;
    for (int kind = 0; kind < (side ? 3 : 2); ++kind) {
      bool alone = true, full = true;
      for (int d = 0; d < n * n; ++d) {
        if (d == i || !same_line(d, i, kind)) continue;
        alone = alone && !could_hold(d, v);
        full = full && cells[d] != 0;
      }
      if (rule == RemovalRule::naked_single ? full : alone) ok = true;
    }
    if (rule == RemovalRule::authors_code && i % n != 0) ok = true;
    if (ok)
      --filled;
    else
      cells[i] = static_cast<std::uint8_t>(v);
  }
  return cells;
}

}  // namespace

TEST_CASE("lst removal: matches a slow reference of each rule", "[lst]") {
  struct Setup {
    int n;
    bool boxes;
  };
  for (Setup s : {Setup{4, false}, Setup{4, true}, Setup{5, false}, Setup{6, false}, Setup{9, true}}) {
    for (RemovalRule rule : {RemovalRule::hidden_single, RemovalRule::naked_single, RemovalRule::authors_code}) {
      Rng rng = Rng::stream(21, "replay", static_cast<std::uint64_t>(s.n * 10 + s.boxes));
      for (int k = 0; k < (s.n == 9 ? 10 : 100); ++k) {
        const Cells full = random_latin_square(s.n, s.boxes, rng, LatinFill::restart_row);
        const int keep = static_cast<int>(rng.below(static_cast<std::uint64_t>(s.n * s.n / 2)));
        const Cells expect = slow_removal(full, s.n, s.boxes, rng, keep, rule);
        Cells got = full;
        remove_cells(got, s.n, s.boxes, rng, keep, rule);
        INFO("n=" << s.n << " boxes=" << s.boxes << " rule=" << static_cast<int>(rule) << " k=" << k);
        REQUIRE(got == expect);
      }
    }
  }
}
