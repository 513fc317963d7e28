#include "lst_options.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "core/config/fail_at.hpp"
#include "core/config/options.hpp"
#include "core/error.hpp"
#include "human_puzzles.hpp"

namespace loci::lst_grid {

namespace {

using K = LstGridOptions;
using sim::lst::LatinFill;
using sim::lst::RemovalRule;

// Every key once, bound to the member that holds it; its default is that member's.
const config::OptionTable<LstGridOptions>& table() {
  static const config::OptionTable<LstGridOptions> t = [] {
    config::OptionTable<LstGridOptions> t;
    t.add("splits", [](K& k) -> config::Entries<std::int64_t>& { return k.generated_splits; })
        .min(1)
        .doc(
            "generated splits (name -> puzzles), each stratified by class; imported splits come from `imports`; "
            "with lst.source: file, drawn from lst.puzzle_files instead");
    t.add_choice(
         "lst.source", [](K& k) -> PuzzleSource& { return k.source; },
         Choices<PuzzleSource>{{"generate", PuzzleSource::generate}, {"file", PuzzleSource::file}})
        .doc(
            "generate = make every split's puzzles; file = draw them from lst.puzzle_files by seed, without "
            "replacement, stratified by class (the authors' 9,000 puzzles: lst.puzzle_files: [builtin:authors])");
    t.add("lst.puzzle_files", [](K& k) -> std::vector<std::string>& { return k.pool_files; })
        .doc(
            "source: file: puzzle CSVs in the authors' layout (ID, LST_num, condition, puzzles, solutions); "
            "builtin:authors = the 9,000 generated puzzles the paper trained and tested on (MIT)");
    t.add("lst.n", [](K& k) -> int& { return k.generate.n(); })
        .within(3, 9)
        .doc("grid side N: N*N tokens with N+1 channels");
    t.add("lst.boxes", [](K& k) -> bool& {
       return k.generate.boxes();
     }).doc("Sudoku boxes as extra constraints (N = 4 or 9)");
    t.add("lst.min_givens", [](K& k) -> int& { return k.generate.min_givens(); })
        .min(0)
        .doc("fewest givens (filled cells besides the target)");
    t.add("lst.max_givens", [](K& k) -> int& { return k.generate.max_givens(); }).min(0).doc("most givens");
    t.add_choice(
         "lst.removal", [](K& k) -> RemovalRule& { return k.generate.removal(); },
         Choices<RemovalRule>{{"authors_code", RemovalRule::authors_code},
                              {"hidden_single", RemovalRule::hidden_single},
                              {"naked_single", RemovalRule::naked_single}})
        .doc(
            "cell-removal rule: authors_code = the paper's data (their generator blanks any cell outside column 0 and "
            "keeps column-0 cells deducible), hidden_single / naked_single = every blanked cell stays deducible");
    t.add_choice(
         "lst.fill", [](K& k) -> LatinFill& { return k.generate.fill(); },
         Choices<LatinFill>{{"restart_square", LatinFill::restart_square}, {"restart_row", LatinFill::restart_row}})
        .doc(
            "Latin-square construction: restart the square on a dead end (the paper) or only the row (much faster "
            "for 9x9)");
    t.add("lst.class_weights", [](K& k) -> std::vector<double>& { return k.class_weights; })
        .min(0)
        .doc("relative share of Binary, Ternary, Quaternary items in each generated split");
    t.add("lst.balance_labels", [](K& k) -> bool& {
       return k.balance_labels;
     }).doc("rename symbols so answers cycle through 1..N (balanced labels)");
    t.add("lst.disjoint_splits", [](K& k) -> bool& { return k.disjoint_splits; })
        .doc(
            "no generated split repeats another's puzzle: each puzzle belongs to one split by a hash of its cells, "
            "in proportion to the splits' sizes (false = independent draws, as before: 41 of 900 test puzzles "
            "were training puzzles too)");
    t.add("lst.exclude", [](K& k) -> std::string& {
       return k.exclude_source;
     }).doc("puzzle CSV that generated items must stay far from (builtin:human = the 108 human puzzles); none = off");
    t.add("lst.min_jaccard", [](K& k) -> double& { return k.generate.min_jaccard(); })
        .within(0, 1)
        .doc("generated items keep a Jaccard distance above this from every excluded puzzle");
    t.add("lst.imports", [](K& k) -> config::Entries<std::string>& {
       return k.import_files;
     }).doc("splits imported from puzzle CSVs (split -> file; builtin:human = the human study)");
    t.add("lst.max_attempts", [](K& k) -> std::uint64_t& { return k.generate.max_attempts(); })
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
    config::fail_at(where.mark(), e.what());
  }
}

void check_grid(const config::Node& r, const sim::lst::PuzzleOptions& g) {
  const int n = g.n();
  if (g.boxes() && sim::lst::box_side(n) == 0)
    config::fail_at(r.at("lst.boxes").mark(), "'lst.boxes' needs a square N (4 or 9), N is " + std::to_string(n));
  if (g.min_givens() > g.max_givens())
    config::fail_at(r.at("lst.min_givens").mark(), "'lst.min_givens' (" + std::to_string(g.min_givens()) +
                                                       ") is above 'lst.max_givens' (" +
                                                       std::to_string(g.max_givens()) + ")");
  if (g.max_givens() > n * n - 1)
    config::fail_at(r.at("lst.max_givens").mark(),
                    "'lst.max_givens' is above the " + std::to_string(n * n - 1) + " cells besides the target");
}

void check_class_weights(const config::Node& r, std::vector<double>& w) {
  if (w.size() != 3)
    config::fail_at(r.at("lst.class_weights").mark(),
                    "'lst.class_weights' takes 3 weights (Binary, Ternary, Quaternary)");
  const double largest = std::max({w[0], w[1], w[2]});
  if (largest <= 0) config::fail_at(r.at("lst.class_weights").mark(), "'lst.class_weights' must not all be 0");
  // Only their ratios count. Weights whose sum overflows (3 x 9e307) are scaled so the largest is 1; others are
  // kept as written, so that every dataset made before keeps its exact strata.
  if (!std::isfinite(w[0] + w[1] + w[2]))
    for (double& x : w) x /= largest;
}

void load_exclusion(const config::Node& r, LstGridOptions& o) {
  if (o.exclude_source == "none" || o.exclude_source.empty()) {
    o.exclude_source.clear();
    return;
  }
  const auto& exclude = r.at("lst.exclude");
  auto rows = read_csv(o.exclude_source, exclude);
  if (!rows.empty() && rows.front().puzzle.n != o.generate.n())
    config::fail_at(exclude.mark(), "'lst.exclude' holds " + std::to_string(rows.front().puzzle.n) + "x" +
                                        std::to_string(rows.front().puzzle.n) + " puzzles but lst.n is " +
                                        std::to_string(o.generate.n()) + " (set lst.exclude: none)");
  o.exclude = std::make_shared<const sim::lst::ReferenceSet>(sim::lst::puzzles_of(rows));
}

void load_imports(const config::Node& r, LstGridOptions& o) {
  for (const auto& [split, file] : o.import_files) {
    const auto& where = *r.at("lst.imports").find(split);
    ImportedPuzzles s{split, file, read_csv(file, where)};
    if (const int n = o.generate.n(); !s.rows.empty() && s.rows.front().puzzle.n != n) {
      const std::string side = std::to_string(s.rows.front().puzzle.n);
      config::fail_at(where.mark(), "split '" + split + "' imports " + side + "x" + side + " puzzles but lst.n is " +
                                        std::to_string(n) + " (set lst.imports: {})");
    }
    o.imports.push_back(std::move(s));
  }
  for (const auto& [split, count] : o.generated_splits)
    for (const auto& imp : o.imports)
      if (imp.split == split)
        throw UserError(r.at("splits").find(split)->key_mark().str() + ": split '" + split +
                        "' is both generated and imported");
}

void load_pool(const config::Node& r, LstGridOptions& o) {
  if (o.source != PuzzleSource::file) return;
  const auto& files = r.at("lst.puzzle_files");
  if (o.pool_files.empty()) config::fail_at(files.mark(), "lst.source: file needs 'lst.puzzle_files'");
  if (o.generate.n() != 4)
    config::fail_at(r.at("lst.n").mark(),
                    "puzzle files hold 4x4 puzzles but lst.n is " + std::to_string(o.generate.n()));
  PoolRequest request;
  for (const auto& f : o.pool_files) request.files.push_back(f);
  request.exclude = o.exclude.get();
  request.min_jaccard = o.generate.min_jaccard();
  request.splits = o.generated_splits;
  request.class_weights = o.class_weights;
  request.seed = static_cast<std::uint64_t>(r.at("seed").as_int());
  try {
    o.pool = std::make_shared<const PuzzlePool>(lst_grid::load_pool(request));
  } catch (const std::exception& e) {
    config::fail_at(files.mark(), e.what());
  }
}

}  // namespace

LstGridOptions read_options(const config::Node& r) {
  LstGridOptions o;
  table().read(r, o);
  check_grid(r, o.generate);
  check_class_weights(r, o.class_weights);
  load_exclusion(r, o);
  load_imports(r, o);
  load_pool(r, o);
  return o;
}

}  // namespace loci::lst_grid
