// Finds plugin libraries, reads their metadata and refuses bad ones with a one-line reason naming the file.
// Libraries are never unloaded: unloading one that links LibTorch crashes in its operator registry, and keeping
// the others costs nothing.
#pragma once

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "plugins/api/config/schema.hpp"
#include "plugins/api/plugin.hpp"

namespace loci {

struct PluginRecord {
  std::string name, version, description;
  loci_plugin_kind kind = LOCI_PLUGIN_GENERATOR;
  std::filesystem::path file;
  const loci_plugin_info* info = nullptr;

  const char* kind_name() const;
  // The plugin's own keys on top of the vocabulary every plugin of its kind shares.
  config::Schema schema() const;
};

struct RefusedPlugin {
  std::filesystem::path file;
  std::string reason;
};

class PluginRegistry {
 public:
  // Folders searched, first match wins: `extra` (the `plugin_path:` of a config), then LOCI_PLUGIN_PATH
  // (colon-separated), then <folder of the loci executable>/../lib/loci/plugins, which is both the build tree
  // and the install prefix (lib is the platform's library folder).
  static std::vector<std::filesystem::path> search_path(const std::vector<std::filesystem::path>& extra = {});

  // Loads every lib*.so in `folders` (not recursive) that exports the entry point.
  void scan(const std::vector<std::filesystem::path>& folders);
  // Loads one library file; returns false (and records why) when it is refused.
  bool load(const std::filesystem::path& file);

  const std::vector<PluginRecord>& plugins() const { return plugins_; }
  const std::vector<RefusedPlugin>& refused() const { return refused_; }

  // The plugin named `name` of the given kind, or a UserError listing what there is.
  const PluginRecord& find(const std::string& name, loci_plugin_kind kind) const;

  std::unique_ptr<Generator> make_generator(const std::string& name) const;
  std::unique_ptr<Trainer> make_trainer(const std::string& name) const;

 private:
  std::vector<PluginRecord> plugins_;
  std::vector<RefusedPlugin> refused_;
};

// The keys every generator config shares (generator, seed, out, samples_per_shard, splits, ...).
const config::Schema& generator_common_schema();
// The keys every training config shares (trainer, data, out, seed, ...); trainers add model.* and train.*.
const config::Schema& trainer_common_schema();

}  // namespace loci
