// The lst_grid config: its keys declared once (lst_options.cpp), read from the resolved YAML into plain values.
#pragma once

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "core/config/node.hpp"
#include "human_puzzles.hpp"
#include "puzzle_pool.hpp"
#include "sim/lst/csv.hpp"
#include "sim/lst/generate.hpp"

namespace loci::lst_grid {

// The plugin's keys (schema YAML), generated from their declaration in lst_options.cpp.
const char* schema_text();

// An imported split: labelled puzzles read from a CSV (or the built-in human set).
struct ImportedPuzzles {
  std::string split;
  std::string source;  // a CSV path or kBuiltinHuman
  std::vector<sim::lst::LabelledPuzzle> rows;
};

// Where the splits' puzzles come from: made by the generator, or drawn from puzzle files (lst.puzzle_files).
enum class PuzzleSource { generate, file };

// The keys as read, bound once in lst_options.cpp's table: the puzzle generator's own options (sim's struct, so its
// defaults are sim's but for the removal rule, which is the paper's here), then what the plugin alone decides.
struct LstGridOptions {
  // Without a reference: the plugin checks distance after balancing labels.
  sim::lst::PuzzleOptions generate = sim::lst::PuzzleOptions().removal(sim::lst::RemovalRule::authors_code);
  std::shared_ptr<const sim::lst::ReferenceSet> exclude;  // null when exclusion is off
  std::string exclude_source = kBuiltinHuman;             // the CSV it came from, or kBuiltinHuman; "" when off
  std::vector<double> class_weights{1, 1, 1};             // Binary, Ternary, Quaternary
  bool balance_labels = true;
  bool disjoint_splits = true;  // no generated split repeats another's puzzle
  std::vector<std::pair<std::string, std::string>> import_files{{"human", kBuiltinHuman}};  // split -> CSV, as written
  std::vector<ImportedPuzzles> imports;
  std::vector<std::pair<std::string, std::int64_t>> generated_splits{{"train", 8100}, {"test", 900}};
  PuzzleSource source = PuzzleSource::generate;
  std::vector<std::string> pool_files{kBuiltinAuthors};  // source: file: the CSVs the splits are drawn from
  std::shared_ptr<const PuzzlePool> pool;                // source: file: read, checked and drawn; else null
};

// Reads and checks the lst_grid keys; a problem is a UserError at the offending key's position.
LstGridOptions read_options(const config::Node& resolved);

}  // namespace loci::lst_grid
