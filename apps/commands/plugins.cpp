// `loci plugins`: every plugin found on the search path, and every refused library with its reason.
#include <iomanip>
#include <iostream>

#include "apps/commands.hpp"
#include "plugins/api/plugin_loader.hpp"

namespace loci::apps {

void add_plugins_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("plugins", "List the plugins found (kind, name, version, file) and refused libraries");
  auto paths = std::make_shared<std::vector<std::string>>();
  cmd->add_option("--path", *paths, "Extra folders to search first (also: LOCI_PLUGIN_PATH)");
  cmd->callback([paths] {
    std::vector<std::filesystem::path> extra(paths->begin(), paths->end());
    plugins::PluginRegistry registry;
    const auto dirs = plugins::PluginRegistry::search_path(extra);
    registry.scan(dirs);
    std::cout << "search path:\n";
    for (const auto& d : dirs) std::cout << "  " << d.string() << "\n";
    std::cout << "plugins:\n";
    if (registry.plugins().empty()) std::cout << "  (none)\n";
    for (const auto& p : registry.plugins())
      std::cout << "  " << std::left << std::setw(10) << p.kind_name() << std::setw(20) << p.name << std::setw(9)
                << p.version << p.file.string() << "\n    " << p.description << "\n";
    if (!registry.refused().empty()) {
      std::cout << "refused:\n";
      for (const auto& r : registry.refused()) std::cout << "  " << r.file.string() << ": " << r.reason << "\n";
    }
  });
}

}  // namespace loci::apps
