// Finds plugin libraries, reads their metadata and refuses bad ones with a one-line reason naming the file.
// Nothing runs before it is needed and trusted: a library is listed from its ELF note (plugin_note.hpp) without
// loading it; a file or folder others may write is refused before anything is read from it; only the plugin a
// command asks for (a trainer: with the extensions whose registrations it reads) is ever dlopened.
// Libraries are never unloaded: unloading one that links LibTorch crashes in its operator registry, and keeping
// the others costs nothing.
#pragma once

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "core/common_options.hpp"
#include "core/config/schema.hpp"
#include "plugins/api/plugin.hpp"

namespace loci::plugins {

struct PluginRecord {
  std::string name, version, description;
  loci_plugin_kind kind = LOCI_PLUGIN_GENERATOR;
  std::filesystem::path file;
  // The entry point's metadata, once the library is loaded (PluginRegistry::find loads it); null before.
  mutable const loci_plugin_info* info = nullptr;

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

  // Lists every *.so in `folders` (not recursive) from its note, loading none. `override_names`: plugin names that
  // may come from more than one library, the first in search order winning (the config's `plugin_override`);
  // any other name provided twice is an error when it is asked for.
  void scan(const std::vector<std::filesystem::path>& folders, const std::vector<std::string>& override_names = {});
  // Lists one library file; returns false (and records why) when it is refused.
  bool add(const std::filesystem::path& file, const std::vector<std::string>& override_names = {});

  const std::vector<PluginRecord>& plugins() const { return plugins_; }
  const std::vector<RefusedPlugin>& refused() const { return refused_; }

  // The plugin named `name` of the given kind, loaded (a trainer after every extension), or a UserError: none of
  // that name (listing what there is), two libraries of that name, or a library that fails to load.
  const PluginRecord& find(const std::string& name, loci_plugin_kind kind) const;

  // Loads every extension listed (their registrations: PEs, inits, probes), for commands that read the registries.
  void load_extensions() const;

  std::unique_ptr<Generator> make_generator(const std::string& name) const;
  std::unique_ptr<Trainer> make_trainer(const std::string& name) const;

 private:
  void load(const PluginRecord& rec) const;

  std::vector<PluginRecord> plugins_;
  std::vector<RefusedPlugin> refused_;
  std::vector<std::filesystem::path> searched_;  // the folders scan() was given, for a name found in none
  std::vector<std::pair<std::string, std::filesystem::path>> duplicates_;  // name, the second file providing it
};

// Why `path` (a plugin file or folder) must not be loaded from, or "": writable by anyone but its owner (a group
// other than the owner's own, or everyone), or owned by a user other than root and this process's.
std::string untrusted_reason(const std::filesystem::path& path);

}  // namespace loci::plugins
