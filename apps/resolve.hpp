// From a config file and command-line overrides to a validated, fully resolved config and the plugin it names.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "core/config/node.hpp"
#include "plugins/api/plugin_loader.hpp"

namespace loci::apps {

enum class ConfigKind { generator, trainer, pipeline };

struct ResolvedConfig {
  ConfigKind kind = ConfigKind::generator;
  config::Node node;                              // defaults + file + overrides, validated
  const plugins::PluginRecord* plugin = nullptr;  // null for a pipeline
};

// Raw config (file + overrides applied, no defaults): enough to tell what kind it is and which plugin it names.
config::Node load_raw(const std::filesystem::path& file, const std::vector<std::string>& overrides);
ConfigKind kind_of(const config::Node& raw, const std::string& where);

// Loads plugins from the search path, including the config's own `plugin_path:` entries.
// `overrides` may move `plugin_path` and `plugin_override` too; the others are not looked at here.
plugins::PluginRegistry load_plugins(const config::Node& raw, const std::filesystem::path& config_file,
                                     const std::vector<std::string>& overrides = {});

ResolvedConfig resolve(const std::filesystem::path& file, const std::vector<std::string>& overrides,
                       plugins::PluginRegistry& registry);
// A run folder's own config.yaml, resolved as the training config it is (intervene, export); UserError naming the
// folder when it holds none or the file is not a training config.
ResolvedConfig resolve_run(const std::filesystem::path& run, plugins::PluginRegistry& registry);
// Same for a config already in memory (one stage of a pipeline).
ResolvedConfig resolve_node(const config::Node& file_node, const std::vector<std::string>& overrides,
                            plugins::PluginRegistry& registry, const std::string& where);

}  // namespace loci::apps
