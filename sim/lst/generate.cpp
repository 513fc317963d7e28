#include "sim/lst/generate.hpp"

#include <sstream>
#include <stdexcept>

#include "sim/lst/solver.hpp"

namespace loci::sim::lst {

namespace {

void check_condition(int wanted) {
  if (wanted < kNone || wanted > kQuaternary)
    throw std::invalid_argument("lst: wanted condition must be -1 (any), 0, 1 or 2, got " + std::to_string(wanted));
}

// The checks run cheapest first; on 4x4 with the human reference set about 98% of classified candidates fall at
// the Jaccard step, so the solver runs on the few that survive it.
std::optional<Item> attempt(const PuzzleOptions& opt, Rng& rng, int wanted) {
  const int n = opt.n();
  Item item;
  item.attempts = 1;
  item.solution = random_latin_square(n, opt.boxes(), rng, opt.fill(), opt.shuffle_lines());

  Puzzle& p = item.puzzle;
  p.n = n;
  p.boxes = opt.boxes();
  p.cells = item.solution;
  const int keep =
      opt.random_stop()
          ? opt.min_givens() +
                static_cast<int>(rng.below(static_cast<std::uint64_t>(opt.max_givens() - opt.min_givens() + 1)))
          : 0;
  const int filled = remove_cells(p.cells, n, opt.boxes(), rng, keep, opt.removal());
  const int blanks = n * n - filled;
  if (blanks == 0) return std::nullopt;

  int pick = static_cast<int>(rng.below(static_cast<std::uint64_t>(blanks)));
  for (int i = 0; i < n * n; ++i) {
    if (p.cells[i] == 0 && pick-- == 0) {
      p.target = i;
      break;
    }
  }
  item.givens = filled;
  if (filled < opt.min_givens() || filled > opt.max_givens()) return std::nullopt;

  item.classification = classify(p);
  const Classification& c = item.classification;
  if (!c.valid() || (wanted != kNone && c.condition != wanted)) return std::nullopt;
  if (c.answer != item.solution[p.target]) return std::nullopt;
  p.answer = c.answer;

  if (opt.reference()) {
    if (!opt.reference()->all_farther_than(p, opt.min_jaccard())) return std::nullopt;
    item.reference_distance = opt.reference()->min_distance(p);
  }

  int unique = 0;
  if (!answer_is_unique(p, &unique) || unique != p.answer) return std::nullopt;
  return item;
}

}  // namespace

void check(const PuzzleOptions& opt) {
  auto fail = [](const std::string& what) { throw std::invalid_argument("lst generate options: " + what); };
  const int n = opt.n();
  if (n < kMinN || n > kMaxN) fail("n must be in 3..9, got " + std::to_string(n));
  if (opt.boxes() && box_side(n) == 0) fail("boxes need n = 4 or 9, got " + std::to_string(n));
  if (opt.min_givens() < 0 || opt.max_givens() > n * n - 1 || opt.min_givens() > opt.max_givens())
    fail("givens range [" + std::to_string(opt.min_givens()) + ", " + std::to_string(opt.max_givens()) +
         "] must lie within [0, " + std::to_string(n * n - 1) + "] with min <= max");
  if (!(opt.min_jaccard() >= 0.0 && opt.min_jaccard() <= 1.0))
    fail("min_jaccard must be in [0, 1], got " + std::to_string(opt.min_jaccard()));
  if (opt.reference() && opt.reference()->size() > 0 && opt.reference()->n() != n)
    fail("reference puzzles have N=" + std::to_string(opt.reference()->n()) + " but n is " + std::to_string(n));
  if (opt.max_attempts() == 0) fail("max_attempts must be positive");
}

std::optional<Item> try_generate(const PuzzleOptions& opt, Rng& rng, int wanted_condition) {
  check(opt);
  check_condition(wanted_condition);
  return attempt(opt, rng, wanted_condition);
}

Item generate(const PuzzleOptions& opt, int wanted_condition, Rng& rng) {
  check(opt);
  check_condition(wanted_condition);
  for (std::uint64_t k = 1; k <= opt.max_attempts(); ++k) {
    if (auto item = attempt(opt, rng, wanted_condition)) {
      item->attempts = k;
      return *std::move(item);
    }
  }
  std::ostringstream msg;
  msg << "lst::generate: no " << (wanted_condition == kNone ? "valid" : condition_name(wanted_condition))
      << " item after " << opt.max_attempts() << " attempts (N=" << opt.n() << (opt.boxes() ? " with boxes" : "")
      << ", givens " << opt.min_givens() << ".." << opt.max_givens();
  if (opt.reference()) msg << ", Jaccard > " << opt.min_jaccard() << " from " << opt.reference()->size() << " puzzles";
  msg << "); widen the givens range, lower min_jaccard or raise max_attempts";
  throw std::runtime_error(msg.str());
}

}  // namespace loci::sim::lst
