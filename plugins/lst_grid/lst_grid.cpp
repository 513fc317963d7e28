// lst_grid: the Latin Square Task of Experiment 1 (arXiv 2406.08272) as a generator plugin. Generated splits are
// stratified by class and balanced by answer; imported splits (the 108 human puzzles by default) are read from CSV.
#include <algorithm>
#include <iostream>
#include <map>

#include "core/error.hpp"
#include "human_puzzles.hpp"
#include "lst_options.hpp"
#include "lst_render.hpp"
#include "plugins/api/plugin.hpp"
#include "sim/lst/solver.hpp"
#include "sim/lst/symbols.hpp"
#include "sim/random/strata.hpp"

namespace loci::lst_grid {

namespace {

using datasets::DType;
using sim::lst::Item;

// Indices into the per-sample arrays, in layout order.
enum Slot : std::size_t {
  kTokens,
  kLabel,
  kCondition,
  kStrategy,
  kTargetCell,
  kGivens,
  kSolution,
  kDistance,
  kVerified
};

// lst.disjoint_splits: a puzzle belongs to exactly one generated split, the one whose range holds its hash value
// modulo the splits' total size, so no split can repeat another's puzzle, each sample is still made alone (by its
// own seed stream), and each split keeps its share of every kind of puzzle (the hash ignores what a puzzle is like).
struct Buckets {
  std::uint64_t total = 0;  // 0: off
  std::uint64_t first = 0;
  std::uint64_t count = 0;
};

// FNV-1a of what makes two puzzles the same item: the cells and the target.
std::uint64_t puzzle_hash(const sim::lst::Puzzle& p) {
  std::uint64_t h = 0xCBF29CE484222325ull;
  for (int i = 0; i < p.n * p.n; ++i) h = (h ^ p.cells[static_cast<std::size_t>(i)]) * 0x100000001B3ull;
  return (h ^ static_cast<std::uint64_t>(p.target + 1)) * 0x100000001B3ull;
}

class LstGrid final : public plugins::Generator {
 public:
  void configure(const config::Node& resolved) override {
    opt_ = read_options(resolved);
    const int n = opt_.generate.n();
    const std::int64_t cells = n * n;
    layout_ = {};
    layout_.sample_arrays = {
        {"tokens",
         DType::u8,
         {"token", "channel"},
         {cells, n + 1},
         "one-hot per cell: symbols 1..N, then the target channel; blank = all zeros"},
        {"label", DType::u8, {}, {}, "answer symbol - 1 (the class to predict)"},
        {"condition", DType::u8, {}, {}, "relational complexity: 0 Binary, 1 Ternary, 2 Quaternary"},
        {"strategy",
         DType::u8,
         {},
         {},
         "deduction that fixes the target (index into the root attribute strategy_names)"},
        {"target_cell", DType::u8, {}, {}, "row-major index of the target cell"},
        {"givens", DType::u8, {}, {}, "filled cells besides the target"},
        {"solution",
         DType::u8,
         {"token"},
         {cells},
         "a full Latin square completing the puzzle (imported: the unique one)"},
        {"reference_distance", DType::f32, {}, {}, "smallest Jaccard distance to the excluded puzzles (1 when none)"},
        {"label_verified",
         DType::u8,
         {},
         {},
         "1 when the classifier and the exact solver confirm the stated class and answer"},
    };
    std::vector<float> pos;
    for (int t = 0; t < cells; ++t) {
      pos.push_back(static_cast<float>(t / n));
      pos.push_back(static_cast<float>(t % n));
    }
    layout_.dataset_arrays = {datasets::Array::of({"positions",
                                                   DType::f32,
                                                   {"token", "axis"},
                                                   {cells, 2},
                                                   "true position of each token: (row, column) of its cell"},
                                                  pos)};
    std::string names;
    for (int s = 0; s <= static_cast<int>(sim::lst::Strategy::quaternary_box); ++s)
      names += std::string(s ? "," : "") + sim::lst::strategy_name(static_cast<sim::lst::Strategy>(s));
    layout_.attributes = {{"strategy_names", names},
                          {"condition_names", std::string("Binary,Ternary,Quaternary")},
                          {"grid_n", static_cast<std::int64_t>(n)},
                          {"boxes", static_cast<std::int64_t>(opt_.generate.boxes())}};
    for (const auto& imp : opt_.imports)
      if (imp.source == kBuiltinHuman)
        layout_.attributes["human_puzzles_license"] =
            std::string("The human-study puzzles are from ljhearne/LSTNN_public (MIT):\n") + human_puzzles_license();
    if (opt_.pool && std::count(opt_.pool_files.begin(), opt_.pool_files.end(), std::string(kBuiltinAuthors)) > 0)
      layout_.attributes["authors_puzzles_license"] =
          std::string("The authors' generated puzzles are from ljhearne/LSTNN_public (MIT):\n") +
          human_puzzles_license();

    strata_.clear();
    buckets_.clear();
    if (!opt_.pool) {
      std::uint64_t total = 0;
      for (const auto& [split, count] : opt_.generated_splits) total += static_cast<std::uint64_t>(count);
      std::uint64_t first = 0;
      for (const auto& [split, count] : opt_.generated_splits) {
        strata_[split] = sim::stratify(opt_.class_weights, count);
        buckets_[split] = opt_.disjoint_splits ? Buckets{total, first, static_cast<std::uint64_t>(count)} : Buckets{};
        first += static_cast<std::uint64_t>(count);
      }
    }
    verify_imports();
  }

  const datasets::DatasetLayout& layout() const override { return layout_; }

  // The users' puzzle files; the builtin human puzzles are part of loci, so they are not an outside input.
  std::vector<std::string> input_files() const override {
    std::vector<std::string> files;
    if (!opt_.exclude_source.empty() && opt_.exclude_source != kBuiltinHuman) files.push_back(opt_.exclude_source);
    for (const auto& imp : opt_.imports)
      if (imp.source != kBuiltinHuman) files.push_back(imp.source);
    if (opt_.pool)
      for (const auto& f : opt_.pool_files)
        if (f != kBuiltinAuthors) files.push_back(f);
    return files;
  }

  std::vector<std::pair<std::string, std::int64_t>> fixed_splits() const override {
    std::vector<std::pair<std::string, std::int64_t>> out;
    for (const auto& imp : opt_.imports) out.emplace_back(imp.split, static_cast<std::int64_t>(imp.rows.size()));
    return out;
  }

  void fill(const datasets::SampleKey& key, const datasets::SampleSlots& out) const override {
    for (const auto& imp : opt_.imports)
      if (imp.split == key.split) return fill_imported(imp, key.index, out);
    if (opt_.pool) return fill_pooled(opt_.pool->splits.at(key.split).at(static_cast<std::size_t>(key.index)), out);
    const auto strata = strata_.find(key.split);
    if (strata == strata_.end()) throw std::logic_error("lst_grid: unknown split " + key.split);
    const int wanted = strata->second.at(static_cast<std::size_t>(key.index));
    auto rng = sim::Rng::stream(key.seed, key.split, static_cast<std::uint64_t>(key.index));
    write(generate_item(wanted, key.index, buckets_.at(key.split), rng), true, out);
  }

  std::string card_prose() const override {
    const int n = opt_.generate.n();
    std::string s =
        "Latin Square Task puzzles (Experiment 1 of arXiv 2406.08272): a " + std::to_string(n) + "x" +
        std::to_string(n) + " grid, symbols 1.." + std::to_string(n) +
        ", some cells blank and one target cell; the task is to name the symbol of the target (a " + std::to_string(n) +
        "-way classification). Each of the " + std::to_string(n * n) + " tokens is one cell in row-major order, a " +
        std::to_string(n + 1) +
        "-channel one-hot (symbols, then a target channel; a blank is all zeros).\n\n"
        "`/positions` holds each token's true position in the grid: (row, column) of its cell. "
        "`condition` is the relational complexity (Binary: the target's row or column alone fixes it; Ternary: row and "
        "column together; Quaternary: a hidden single, where a symbol is ruled out from every other blank of the row "
        "(or column) by the columns (rows) crossing them). Every generated item was checked by an exact solver to have "
        "the same answer in every Latin-square completion.\n\n";
    if (opt_.pool) return s + pool_prose();
    s += "Generated splits are stratified by class (weights " + std::to_string(opt_.class_weights[0]) + ", " +
         std::to_string(opt_.class_weights[1]) + ", " + std::to_string(opt_.class_weights[2]) + "), givens in [" +
         std::to_string(opt_.generate.min_givens()) + ", " + std::to_string(opt_.generate.max_givens()) + "]";
    if (opt_.exclude)
      s += ", and every item lies at Jaccard distance above " + std::to_string(opt_.generate.min_jaccard()) +
           " from each of the " + std::to_string(opt_.exclude->size()) + " excluded puzzles";
    s += ".";
    for (const auto& imp : opt_.imports)
      s += "\n\nSplit `" + imp.split + "` is imported from " +
           (imp.source == kBuiltinHuman ? std::string("the 108 puzzles of the human study (Hearne et al.; "
                                                      "ljhearne/LSTNN_public, MIT licence, copyright (c) 2022 Luke "
                                                      "Hearne; the licence text is in the root attribute "
                                                      "human_puzzles_license)")
                                        : imp.source) +
           ".";
    return s;
  }

  std::string render_sample(const datasets::SampleSlots& sample) const override {
    return render_puzzle(opt_.generate.n(), sample);
  }

 private:
  Item generate_item(int wanted, std::int64_t index, const Buckets& buckets, sim::Rng& rng) const {
    const int n = opt_.generate.n();
    for (std::uint64_t attempt = 0; attempt < opt_.generate.max_attempts(); ++attempt) {
      auto item = sim::lst::try_generate(opt_.generate, rng, wanted);
      if (!item) continue;
      if (opt_.balance_labels) {
        // Item i answers with symbol 1 + (i / classes) mod N: within each run of classes every answer appears.
        const int want_answer = 1 + static_cast<int>((index / 3) % n);
        sim::lst::swap_symbols(*item, item->puzzle.answer, want_answer);
      }
      if (buckets.total > 0) {
        const std::uint64_t b = puzzle_hash(item->puzzle) % buckets.total;
        if (b < buckets.first || b >= buckets.first + buckets.count) continue;
      }
      if (opt_.exclude) {
        if (!opt_.exclude->all_farther_than(item->puzzle, opt_.generate.min_jaccard())) continue;
        item->reference_distance = opt_.exclude->min_distance(item->puzzle);
      }
      return *item;
    }
    throw UserError("lst_grid: no item of class " + std::string(sim::lst::condition_name(wanted)) + " in " +
                    std::to_string(opt_.generate.max_attempts()) +
                    " attempts; widen lst.min_givens/lst.max_givens, lower lst.min_jaccard, or make the split a "
                    "larger share of all (lst.disjoint_splits)");
  }

  void fill_imported(const ImportedPuzzles& imp, std::int64_t index, const datasets::SampleSlots& out) const {
    const auto& row = imp.rows.at(static_cast<std::size_t>(index));
    Item item;
    item.puzzle = row.puzzle;
    item.classification = sim::lst::classify(row.puzzle);
    item.givens = row.puzzle.givens();
    item.solution = solutions_.at(imp.split).at(static_cast<std::size_t>(index));
    item.reference_distance = opt_.exclude ? static_cast<float>(opt_.exclude->min_distance(row.puzzle)) : 1.0;
    const bool verified = verified_.at(imp.split).at(static_cast<std::size_t>(index));
    item.classification.condition = row.condition;  // the stated class is the label of record
    write(item, verified, out);
  }

  // The card's account of splits drawn from puzzle files, and of any imported ones.
  std::string pool_prose() const {
    std::string files;
    for (const auto& f : opt_.pool_files)
      files +=
          (files.empty() ? "" : ", ") +
          (f == kBuiltinAuthors ? std::string("the authors' 9,000 generated puzzles (ljhearne/LSTNN_public, MIT "
                                              "licence, copyright (c) 2022 Luke Hearne; the licence text is in the "
                                              "root attribute authors_puzzles_license)")
                                : f);
    std::string s =
        "The splits are not generated: each is drawn by seed, without replacement and stratified by class, "
        "from " +
        std::to_string(opt_.pool->puzzles.size()) + " puzzles read from " + files +
        ". Every row was checked when read: an exact solver confirmed its answer is the only one, no row "
        "repeats another";
    if (opt_.exclude)
      s += ", and each lies at Jaccard distance above " + std::to_string(opt_.generate.min_jaccard()) + " from the " +
           std::to_string(opt_.exclude->size()) + " excluded puzzles";
    s += "; a row whose stated class the classifier reads otherwise keeps its class and has label_verified = 0.";
    for (const auto& imp : opt_.imports)
      s += "\n\nSplit `" + imp.split + "` is imported from " +
           (imp.source == kBuiltinHuman ? std::string("the 108 puzzles of the human study (root attribute "
                                                      "human_puzzles_license)")
                                        : imp.source) +
           ".";
    return s;
  }

  void fill_pooled(std::size_t index, const datasets::SampleSlots& out) const {
    const PoolPuzzle& p = opt_.pool->puzzles.at(index);
    Item item;
    item.puzzle = p.row.puzzle;
    item.classification = sim::lst::classify(p.row.puzzle);
    item.classification.condition = p.row.condition;  // the stated class is the label of record
    item.givens = p.row.puzzle.givens();
    item.solution = p.solution;
    item.reference_distance = opt_.exclude ? static_cast<float>(opt_.exclude->min_distance(p.row.puzzle)) : 1.0;
    write(item, p.class_confirmed, out);
  }

  // Checks every imported row with the classifier and the exact solver once, and says which disagree: a row is
  // kept with its stated class and answer, and flagged, never dropped silently.
  void verify_imports() {
    solutions_.clear();
    verified_.clear();
    for (const auto& imp : opt_.imports) {
      auto& sols = solutions_[imp.split];
      auto& ok = verified_[imp.split];
      for (const auto& row : imp.rows) {
        const auto c = sim::lst::classify(row.puzzle);
        int unique = 0;
        const bool is_unique = sim::lst::answer_is_unique(row.puzzle, &unique);
        const auto completion = sim::lst::solve(row.puzzle);
        const sim::lst::Cells solution = completion ? *completion : sim::lst::Cells{};
        const bool agrees =
            c.condition == row.condition && c.answer == row.puzzle.answer && is_unique && unique == row.puzzle.answer;
        if (!agrees)
          std::cerr << "loci: warning: " << imp.source << ": puzzle ID " << row.id << " states "
                    << sim::lst::condition_name(row.condition) << " with answer " << row.puzzle.answer
                    << "; the classifier says " << sim::lst::condition_name(c.condition) << " with answer " << c.answer
                    << (is_unique ? "" : " and the answer is not unique") << " (kept, label_verified = 0)\n";
        sols.push_back(solution);
        ok.push_back(agrees);
      }
    }
  }

  void write(const Item& item, bool verified, const datasets::SampleSlots& out) const {
    const int n = item.puzzle.n;
    sim::lst::one_hot(item.puzzle, out.get<std::uint8_t>(kTokens));
    *out.get<std::uint8_t>(kLabel) = static_cast<std::uint8_t>(item.puzzle.answer - 1);
    *out.get<std::uint8_t>(kCondition) = static_cast<std::uint8_t>(item.classification.condition);
    *out.get<std::uint8_t>(kStrategy) = static_cast<std::uint8_t>(item.classification.strategy);
    *out.get<std::uint8_t>(kTargetCell) = static_cast<std::uint8_t>(item.puzzle.target);
    *out.get<std::uint8_t>(kGivens) = static_cast<std::uint8_t>(item.puzzle.givens());
    std::copy(item.solution.begin(), item.solution.begin() + n * n, out.get<std::uint8_t>(kSolution));
    *out.get<float>(kDistance) = static_cast<float>(item.reference_distance);
    *out.get<std::uint8_t>(kVerified) = verified ? 1 : 0;
  }

  LstGridOptions opt_;
  std::map<std::string, Buckets> buckets_;  // each generated split's share of the puzzles' hash values
  datasets::DatasetLayout layout_;
  std::map<std::string, std::vector<std::int8_t>> strata_;
  std::map<std::string, std::vector<sim::lst::Cells>> solutions_;
  std::map<std::string, std::vector<bool>> verified_;
};

}  // namespace

}  // namespace loci::lst_grid

LOCI_PLUGIN(LOCI_PLUGIN_GENERATOR, "lst_grid", "0.1.0",
            "Latin Square Task puzzles (Experiment 1): N*N cell tokens, true positions = (row, column)",
            loci::lst_grid::schema_text(), loci::lst_grid::LstGrid)
