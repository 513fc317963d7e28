// The plugin ABI. A plugin is a shared library exporting one C function, `loci_plugin_entry`, that returns its
// metadata; the host reads it without creating anything and creates the plugin only when a run needs it.
// The C++ interfaces below have their key functions (destructors) in libloci_core, which host and plugins both
// link, so their type information is one and the same on both sides of the boundary.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "core/config/node.hpp"
#include "core/version.hpp"
#include "datasets/generate.hpp"
#include "datasets/spec.hpp"
#include "plugins/api/plugin_note.hpp"

extern "C" {

// An extension adds parts to loci's registries (a positional encoding, an initialiser) by registering them when it
// is loaded (LOCI_REGISTER(PEInfo, ...), LOCI_REGISTER(InitInfo, ...)); it has no instance and no config of its own.
enum loci_plugin_kind { LOCI_PLUGIN_GENERATOR = 1, LOCI_PLUGIN_TRAINER = 2, LOCI_PLUGIN_EXTENSION = 3 };

struct loci_plugin_info {
  int abi_version;   // must equal the host's loci::kPluginAbi
  int api_version;   // the host accepts >= loci::kMinPluginApi
  int kind;          // loci_plugin_kind
  const char* name;  // unique among loaded plugins: what `generator:` / `trainer:` names
  const char* version;
  const char* description;  // one line
  const char* schema_yaml;  // the plugin's own config keys, see core/config/schema.hpp
  void* (*create)(void);    // a new loci::Plugin, owned by the caller; null for an extension
};

typedef const loci_plugin_info* (*loci_plugin_entry_fn)(void);
}

#define LOCI_PLUGIN_ENTRY_SYMBOL "loci_plugin_entry"

namespace loci::plugins {

class Plugin {
 public:
  virtual ~Plugin();
};

// A generator makes samples whose tokens have known true positions. The host configures it with its resolved
// config, then the generation driver calls fill() (from datasets::SampleSource) concurrently for every sample.
class Generator : public Plugin, public datasets::SampleSource {
 public:
  ~Generator() override;

  // The whole resolved config: the shared generator keys (seed, splits, ...) and the plugin's own.
  virtual void configure(const config::Node& resolved) = 0;

  // Splits whose contents the generator fixes itself (an imported CSV, say), with their sizes; they are made in
  // addition to the configured `splits`.
  virtual std::vector<std::pair<std::string, std::int64_t>> fixed_splits() const { return {}; }

  // Prose for dataset_card.md: what was simulated and what /positions means.
  virtual std::string card_prose() const = 0;

  // A readable rendering of one sample for `loci inspect --show`, or "" to let the host print raw values.
  virtual std::string render_sample(const datasets::SampleSlots& sample) const { return {}; }

  // Files outside loci whose contents the samples are made from (an atlas, imported series): the host records
  // their sizes and SHA-256 in index.json and the card, and refuses a --resume after one changed.
  virtual std::vector<std::string> input_files() const { return {}; }

  // Top-level keys of a resolved config that it does not use (a simulation's keys when the data are imported):
  // left out of the dataset's recorded config, so it says only what made the data. Needs no configure().
  virtual std::vector<std::string> unused_keys(const config::Node& resolved) const { return {}; }

  // The card's licence when the config's `license` is auto: loci's own for data it simulates; an import's is the
  // user's to name.
  virtual std::string default_license() const { return "cc-by-4.0"; }
};

struct TrainRequest {
  bool resume = false;
  bool progress = true;
  // Stop (checkpointed, as if interrupted) once this many epochs are done; 0 = train to the end. `--resume` goes on.
  std::int64_t until_epoch = 0;
  // Only say what training would do with this folder (new, continued, kept, extended or refused, and why), one
  // line on stdout; nothing is read but the config, the dataset's index and the run's records, nothing is written.
  bool dry_run = false;
  // With dry_run: incremented when the run would be refused, so the command can exit 1 after every line is out.
  std::size_t* dry_run_refusals = nullptr;
  // Continue from this checkpoint (checkpoints/epoch_<E>.pt, best.pt, ...) instead of last.pt; implies resume.
  std::string from;
};

// `loci intervene`: evaluate a finished run's model with its PE changed (models/interventions/).
struct InterveneRequest {
  std::filesystem::path run;               // the run folder (its config.yaml is `resolved`)
  std::vector<std::string> interventions;  // registered names to run; empty = every registered one
  std::vector<std::string> splits;         // splits to score; empty = every evaluated split but the training one
  std::int64_t permutations = 5;           // random permutations (permute_random)
  bool per_block = true;                   // also each placement alone, where the PE has several
  bool per_position = true;                // also each token's rows zeroed alone, on the first split
  int threads = 0;                         // 0 = the run's train.threads
  bool progress = true;
};

// `loci export`: a finished run's trained model as a file PyTorch's torch.load reads (python/loci/torch.py).
struct ExportRequest {
  std::filesystem::path run;  // the run folder (its config.yaml is `resolved`)
  std::filesystem::path out;  // the file to write; empty = <run>/model.pt
  bool force = false;         // replace `out` when it exists
};

// A trainer trains a model on a dataset folder and writes a run folder.
class Trainer : public Plugin {
 public:
  ~Trainer() override;
  virtual void train(const config::Node& resolved, const TrainRequest& request) = 0;
  // Writes interventions.json and interventions.csv into the finished run `request.run`. A trainer that cannot
  // throws UserError saying so (the default).
  virtual void intervene(const config::Node& resolved, const InterveneRequest& request);
  // Writes the finished run's model to request.out. A trainer that cannot throws UserError saying so (the default).
  virtual void export_model(const config::Node& resolved, const ExportRequest& request);
};

}  // namespace loci::plugins

// The note the host reads before loading anything (plugin_note.hpp). NAME, VERSION and DESCRIPTION are string
// literals (at most 63, 31 and 255 characters: a longer one does not compile).
#define LOCI_PLUGIN_NOTE(KIND, NAME, VERSION, DESCRIPTION)                         \
  extern "C" __attribute__((section(".loci_plugin"), used, visibility("default"))) \
  const loci::plugins::PluginNote loci_plugin_note = {"LOCIPLG", loci::kPluginAbi, KIND, NAME, VERSION, DESCRIPTION};

// Defines the entry point. Use once per plugin library:
//   LOCI_PLUGIN(LOCI_PLUGIN_GENERATOR, "lst_grid", "0.1.0", "Latin Square Task puzzles", kSchema, LstGrid)
#define LOCI_PLUGIN(KIND, NAME, VERSION, DESCRIPTION, SCHEMA_YAML, CLASS)                                   \
  LOCI_PLUGIN_NOTE(KIND, NAME, VERSION, DESCRIPTION)                                                        \
  extern "C" __attribute__((visibility("default"))) const loci_plugin_info* loci_plugin_entry(void) {       \
    static const loci_plugin_info info = {                                                                  \
        loci::kPluginAbi, loci::kPluginApi, KIND, NAME, VERSION, DESCRIPTION, SCHEMA_YAML, +[]() -> void* { \
          return static_cast<loci::plugins::Plugin*>(new CLASS());                                          \
        }};                                                                                                 \
    return &info;                                                                                           \
  }

// Defines the entry point of an extension: a library whose only work is the registrations it makes when loaded.
//   LOCI_EXTENSION("my_pe", "0.1.0", "a positional encoding of my own")
#define LOCI_EXTENSION(NAME, VERSION, DESCRIPTION)                                                           \
  LOCI_PLUGIN_NOTE(LOCI_PLUGIN_EXTENSION, NAME, VERSION, DESCRIPTION)                                        \
  extern "C" __attribute__((visibility("default"))) const loci_plugin_info* loci_plugin_entry(void) {        \
    static const loci_plugin_info info = {                                                                   \
        loci::kPluginAbi, loci::kPluginApi, LOCI_PLUGIN_EXTENSION, NAME, VERSION, DESCRIPTION, "", nullptr}; \
    return &info;                                                                                            \
  }
