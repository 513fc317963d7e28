// `loci config show FILE [overrides]` and `loci config schema [PLUGIN]`.
#include <iomanip>
#include <iostream>

#include "apps/commands.hpp"
#include "apps/config_file.hpp"
#include "apps/pipeline/pipeline.hpp"
#include "apps/resolve.hpp"
#include "core/config/yaml_io.hpp"
#include "core/error.hpp"

namespace loci::apps {

void add_config_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("config", "Show a resolved config, or a plugin's schema");
  cmd->require_subcommand(1);

  struct ShowArgs {
    std::string file;
    std::vector<std::string> overrides;
  };
  auto show_args = std::make_shared<ShowArgs>();
  auto* show =
      cmd->add_subcommand("show", "Print the resolved YAML of FILE with overrides applied and defaults filled in");
  show->add_option("file", show_args->file, "Config file (YAML)")->required();
  show->add_option("overrides", show_args->overrides, "key.path=value overrides, applied after the file");
  show->callback([show_args] {
    show_args->file = locate_config(show_args->file);
    plugins::PluginRegistry registry;
    const config::Node raw = config::load_file(show_args->file);
    if (kind_of(raw, show_args->file) == ConfigKind::pipeline) {
      registry = load_plugins(raw, show_args->file, show_args->overrides);
      std::cout << config::to_yaml(resolve_pipeline(raw, show_args->overrides, registry, show_args->file));
      return;
    }
    std::cout << config::to_yaml(resolve(show_args->file, show_args->overrides, registry).node);
  });

  auto name = std::make_shared<std::string>();
  auto* schema = cmd->add_subcommand("schema",
                                     "Print every key PLUGIN accepts: type, range, default and what it does "
                                     "(without PLUGIN: the plugins there are)");
  schema->add_option("plugin", *name, "Plugin name; left out, the plugins found are listed");
  schema->callback([name] {
    plugins::PluginRegistry registry;
    registry.scan(plugins::PluginRegistry::search_path());
    if (name->empty()) {
      std::cout << "loci config schema PLUGIN, where PLUGIN is one of:\n";
      for (const auto& p : registry.plugins())
        std::cout << "  " << std::left << std::setw(20) << p.name << std::setw(10) << p.kind_name() << p.description
                  << "\n";
      if (registry.plugins().empty()) std::cout << "  (none found: see `loci plugins` for the search path)\n";
      return;
    }
    const plugins::PluginRecord* rec = nullptr;
    for (const auto& p : registry.plugins())
      if (p.name == *name) rec = &registry.find(p.name, p.kind);  // loads it (and, for a trainer, the extensions)
    if (!rec) registry.find(*name, LOCI_PLUGIN_GENERATOR);        // throws with the nearest name
    std::cout << "# " << rec->kind_name() << " " << rec->name << " " << rec->version << ": " << rec->description << "\n"
              << rec->schema().describe();
  });
}

}  // namespace loci::apps
