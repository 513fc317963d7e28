#include "lst_options.hpp"

#include <sstream>

#include "human_puzzles.hpp"
#include "plugins/api/error.hpp"

namespace loci::lst_grid {

const char* const kSchema = R"yaml(
splits: {type: map, of: int, min: 1, default: {train: 8100, test: 900},
         doc: "generated splits (name -> puzzles), each stratified by class; imported splits come from `imports`"}
lst:
  n: {type: int, default: 4, min: 3, max: 9, doc: "grid side N: N*N tokens with N+1 channels"}
  boxes: {type: bool, default: false, doc: "Sudoku boxes as extra constraints (N = 4 or 9)"}
  min_givens: {type: int, default: 3, min: 0, doc: "fewest givens (filled cells besides the target)"}
  max_givens: {type: int, default: 11, min: 0, doc: "most givens"}
  removal: {type: enum, values: [authors_code, hidden_single, naked_single], default: authors_code,
            doc: "cell-removal rule: authors_code = the paper's data (their generator blanks any cell outside column 0 and keeps column-0 cells deducible), hidden_single / naked_single = every blanked cell stays deducible"}
  fill: {type: enum, values: [restart_square, restart_row], default: restart_square,
         doc: "Latin-square construction: restart the square on a dead end (the paper) or only the row (much faster for 9x9)"}
  class_weights: {type: list, of: float, min: 0, default: [1, 1, 1],
                  doc: "relative share of Binary, Ternary, Quaternary items in each generated split"}
  balance_labels: {type: bool, default: true, doc: "rename symbols so answers cycle through 1..N (balanced labels)"}
  exclude: {type: string, default: "builtin:human",
            doc: "puzzle CSV that generated items must stay far from (builtin:human = the 108 human puzzles); none = off"}
  min_jaccard: {type: float, default: 0.8, min: 0, max: 1,
                doc: "generated items keep a Jaccard distance above this from every excluded puzzle"}
  imports: {type: map, of: string, default: {human: "builtin:human"},
            doc: "splits imported from puzzle CSVs (split -> file; builtin:human = the human study)"}
  max_attempts: {type: int, default: 1000000, min: 1, doc: "rejection-sampling attempts per item before giving up"}
)yaml";

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
  LstGridOptions o;
  const int n = static_cast<int>(r.at("lst.n").as_int());
  const bool boxes = r.at("lst.boxes").as_bool();
  if (boxes && sim::lst::box_side(n) == 0)
    throw UserError(r.at("lst.boxes").mark().str() + ": 'lst.boxes' needs a square N (4 or 9), N is " +
                    std::to_string(n));
  const auto min_g = r.at("lst.min_givens").as_int(), max_g = r.at("lst.max_givens").as_int();
  if (min_g > max_g)
    throw UserError(r.at("lst.min_givens").mark().str() + ": 'lst.min_givens' (" + std::to_string(min_g) +
                    ") is above 'lst.max_givens' (" + std::to_string(max_g) + ")");
  if (max_g > n * n - 1)
    throw UserError(r.at("lst.max_givens").mark().str() + ": 'lst.max_givens' is above the " +
                    std::to_string(n * n - 1) + " cells besides the target");
  o.generate.n(n).boxes(boxes).min_givens(static_cast<int>(min_g)).max_givens(static_cast<int>(max_g))
      .max_attempts(static_cast<std::uint64_t>(r.at("lst.max_attempts").as_int()));
  o.generate.fill(r.at("lst.fill").text() == "restart_row" ? sim::lst::LatinFill::restart_row
                                                           : sim::lst::LatinFill::restart_square);
  const auto& removal = r.at("lst.removal").text();
  o.generate.removal(removal == "hidden_single"   ? sim::lst::RemovalRule::hidden_single
                     : removal == "naked_single" ? sim::lst::RemovalRule::naked_single
                                                 : sim::lst::RemovalRule::authors_code);

  for (const auto& w : r.at("lst.class_weights").items()) o.class_weights.push_back(w.as_double());
  if (o.class_weights.size() != 3)
    throw UserError(r.at("lst.class_weights").mark().str() + ": 'lst.class_weights' takes 3 weights (Binary, Ternary, Quaternary)");
  if (o.class_weights[0] + o.class_weights[1] + o.class_weights[2] <= 0)
    throw UserError(r.at("lst.class_weights").mark().str() + ": 'lst.class_weights' must not all be 0");
  o.balance_labels = r.at("lst.balance_labels").as_bool();

  const auto& exclude = r.at("lst.exclude");
  if (exclude.text() != "none" && !exclude.text().empty()) {
    auto rows = read_csv(exclude.text(), exclude);
    if (!rows.empty() && rows.front().puzzle.n != n)
      throw UserError(exclude.mark().str() + ": 'lst.exclude' holds " + std::to_string(rows.front().puzzle.n) + "x" +
                      std::to_string(rows.front().puzzle.n) + " puzzles but lst.n is " + std::to_string(n) +
                      " (set lst.exclude: none)");
    o.exclude = std::make_shared<const sim::lst::ReferenceSet>(sim::lst::puzzles_of(rows));
  }
  o.generate.min_jaccard(r.at("lst.min_jaccard").as_double());

  for (const auto& [split, file] : r.at("lst.imports").entries()) {
    ImportedSplit s{split, file.text(), read_csv(file.text(), file)};
    if (!s.rows.empty() && s.rows.front().puzzle.n != n)
      throw UserError(file.mark().str() + ": split '" + split + "' imports 4x4 puzzles but lst.n is " +
                      std::to_string(n) + " (set lst.imports: {})");
    o.imports.push_back(std::move(s));
  }
  for (const auto& [split, count] : r.at("splits").entries()) {
    for (const auto& imp : o.imports)
      if (imp.split == split)
        throw UserError(count.key_mark().str() + ": split '" + split + "' is both generated and imported");
    o.generated_splits.emplace_back(split, count.as_int());
  }
  return o;
}

}  // namespace loci::lst_grid
