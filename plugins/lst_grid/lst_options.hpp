// The lst_grid config: its keys declared once (lst_options.cpp), read from the resolved YAML into plain values.
#pragma once

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "plugins/api/config/node.hpp"
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

struct LstGridOptions {
  sim::lst::PuzzleOptions generate;  // without a reference: the plugin checks distance after balancing labels
  std::shared_ptr<const sim::lst::ReferenceSet> exclude;  // null when exclusion is off
  std::string exclude_source;          // the CSV it came from, or kBuiltinHuman; "" when off
  std::vector<double> class_weights;   // Binary, Ternary, Quaternary
  bool balance_labels = true;
  std::vector<ImportedPuzzles> imports;
  std::vector<std::pair<std::string, std::int64_t>> generated_splits;
};

// Reads and checks the lst_grid keys; a problem is a UserError at the offending key's position.
LstGridOptions read_options(const config::Node& resolved);

}  // namespace loci::lst_grid
