#include "lst_options.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "human_puzzles.hpp"
#include "plugins/api/config/options.hpp"
#include "plugins/api/error.hpp"

namespace loci::lst_grid {

namespace {

// The keys as written, declared once: the member, its range or choices and doc; the default is the member's.
struct LstKeys {
  config::Entries<std::int64_t> splits{{"train", 8100}, {"test", 900}};
  std::int64_t n = 4;
  bool boxes = false;
  std::int64_t min_givens = 3, max_givens = 11;
  std::string removal = "authors_code", fill = "restart_square";
  std::vector<double> class_weights{1, 1, 1};
  bool balance_labels = true;
  std::string exclude = kBuiltinHuman;
  double min_jaccard = 0.8;
  config::Entries<std::string> imports{{"human", kBuiltinHuman}};
  std::int64_t max_attempts = 1000000;
};

using K = LstKeys;

const config::OptionTable<LstKeys>& table() {
  static const config::OptionTable<LstKeys> t = [] {
    config::OptionTable<LstKeys> t;
    t.add("splits", [](K& k) -> config::Entries<std::int64_t>& { return k.splits; })
        .min(1)
        .doc("generated splits (name -> puzzles), each stratified by class; imported splits come from `imports`");
    t.add("lst.n", [](K& k) -> std::int64_t& { return k.n; }).within(3, 9).doc("grid side N: N*N tokens with N+1 channels");
    t.add("lst.boxes", [](K& k) -> bool& { return k.boxes; }).doc("Sudoku boxes as extra constraints (N = 4 or 9)");
    t.add("lst.min_givens", [](K& k) -> std::int64_t& { return k.min_givens; })
        .min(0)
        .doc("fewest givens (filled cells besides the target)");
    t.add("lst.max_givens", [](K& k) -> std::int64_t& { return k.max_givens; }).min(0).doc("most givens");
    t.add("lst.removal", [](K& k) -> std::string& { return k.removal; })
        .choices({"authors_code", "hidden_single", "naked_single"})
        .doc("cell-removal rule: authors_code = the paper's data (their generator blanks any cell outside column 0 and "
             "keeps column-0 cells deducible), hidden_single / naked_single = every blanked cell stays deducible");
    t.add("lst.fill", [](K& k) -> std::string& { return k.fill; })
        .choices({"restart_square", "restart_row"})
        .doc("Latin-square construction: restart the square on a dead end (the paper) or only the row (much faster "
             "for 9x9)");
    t.add("lst.class_weights", [](K& k) -> std::vector<double>& { return k.class_weights; })
        .min(0)
        .doc("relative share of Binary, Ternary, Quaternary items in each generated split");
    t.add("lst.balance_labels", [](K& k) -> bool& { return k.balance_labels; })
        .doc("rename symbols so answers cycle through 1..N (balanced labels)");
    t.add("lst.exclude", [](K& k) -> std::string& { return k.exclude; })
        .doc("puzzle CSV that generated items must stay far from (builtin:human = the 108 human puzzles); none = off");
    t.add("lst.min_jaccard", [](K& k) -> double& { return k.min_jaccard; })
        .within(0, 1)
        .doc("generated items keep a Jaccard distance above this from every excluded puzzle");
    t.add("lst.imports", [](K& k) -> config::Entries<std::string>& { return k.imports; })
        .doc("splits imported from puzzle CSVs (split -> file; builtin:human = the human study)");
    t.add("lst.max_attempts", [](K& k) -> std::int64_t& { return k.max_attempts; })
        .min(1)
        .doc("rejection-sampling attempts per item before giving up");
    return t;
  }();
  return t;
}

}  // namespace

const char* schema_text() {
  static const std::string text = table().schema();
  return text.c_str();
}

namespace {

std::vector<sim::lst::LabelledPuzzle> read_csv(const std::string& source, const config::Node& where) {
  try {
    if (source == kBuiltinHuman) {
      std::istringstream in(human_puzzles_csv());
      return sim::lst::parse_human_puzzles(in, "human_puzzles.csv (builtin)");
    }
    return sim::lst::read_human_puzzles(source);
  } catch (const std::exception& e) {
    throw UserError(where.mark().str() + ": " + e.what());
  }
}

}  // namespace

LstGridOptions read_options(const config::Node& r) {
  LstKeys k;
  table().read(r, k);
  LstGridOptions o;
  const int n = static_cast<int>(k.n);
  if (k.boxes && sim::lst::box_side(n) == 0)
    throw UserError(r.at("lst.boxes").mark().str() + ": 'lst.boxes' needs a square N (4 or 9), N is " +
                    std::to_string(n));
  if (k.min_givens > k.max_givens)
    throw UserError(r.at("lst.min_givens").mark().str() + ": 'lst.min_givens' (" + std::to_string(k.min_givens) +
                    ") is above 'lst.max_givens' (" + std::to_string(k.max_givens) + ")");
  if (k.max_givens > n * n - 1)
    throw UserError(r.at("lst.max_givens").mark().str() + ": 'lst.max_givens' is above the " +
                    std::to_string(n * n - 1) + " cells besides the target");
  o.generate.n(n).boxes(k.boxes).min_givens(static_cast<int>(k.min_givens)).max_givens(static_cast<int>(k.max_givens))
      .max_attempts(static_cast<std::uint64_t>(k.max_attempts));
  o.generate.fill(k.fill == "restart_row" ? sim::lst::LatinFill::restart_row : sim::lst::LatinFill::restart_square);
  o.generate.removal(k.removal == "hidden_single"   ? sim::lst::RemovalRule::hidden_single
                     : k.removal == "naked_single" ? sim::lst::RemovalRule::naked_single
                                                   : sim::lst::RemovalRule::authors_code);

  o.class_weights = k.class_weights;
  if (o.class_weights.size() != 3)
    throw UserError(r.at("lst.class_weights").mark().str() + ": 'lst.class_weights' takes 3 weights (Binary, Ternary, Quaternary)");
  const double largest = std::max({o.class_weights[0], o.class_weights[1], o.class_weights[2]});
  if (largest <= 0)
    throw UserError(r.at("lst.class_weights").mark().str() + ": 'lst.class_weights' must not all be 0");
  // Only their ratios count. Weights whose sum overflows (3 x 9e307) are scaled so the largest is 1; others are
  // kept as written, so that every dataset made before keeps its exact strata.
  if (!std::isfinite(o.class_weights[0] + o.class_weights[1] + o.class_weights[2]))
    for (double& w : o.class_weights) w /= largest;
  o.balance_labels = k.balance_labels;

  const auto& exclude = r.at("lst.exclude");
  if (k.exclude != "none" && !k.exclude.empty()) {
    auto rows = read_csv(k.exclude, exclude);
    if (!rows.empty() && rows.front().puzzle.n != n)
      throw UserError(exclude.mark().str() + ": 'lst.exclude' holds " + std::to_string(rows.front().puzzle.n) + "x" +
                      std::to_string(rows.front().puzzle.n) + " puzzles but lst.n is " + std::to_string(n) +
                      " (set lst.exclude: none)");
    o.exclude = std::make_shared<const sim::lst::ReferenceSet>(sim::lst::puzzles_of(rows));
    o.exclude_source = k.exclude;
  }
  o.generate.min_jaccard(k.min_jaccard);

  for (const auto& [split, file] : k.imports) {
    const auto& where = *r.at("lst.imports").find(split);
    ImportedPuzzles s{split, file, read_csv(file, where)};
    if (!s.rows.empty() && s.rows.front().puzzle.n != n)
      throw UserError(where.mark().str() + ": split '" + split + "' imports 4x4 puzzles but lst.n is " +
                      std::to_string(n) + " (set lst.imports: {})");
    o.imports.push_back(std::move(s));
  }
  for (const auto& [split, count] : k.splits) {
    for (const auto& imp : o.imports)
      if (imp.split == split)
        throw UserError(r.at("splits").find(split)->key_mark().str() + ": split '" + split +
                        "' is both generated and imported");
    o.generated_splits.emplace_back(split, count);
  }
  return o;
}

}  // namespace loci::lst_grid
