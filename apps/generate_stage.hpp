// Making a dataset from a resolved generator config: shared by `loci generate` and the pipeline's generate stage.
#pragma once

#include "plugins/api/config/node.hpp"
#include "plugins/api/plugin_loader.hpp"

namespace loci::app {

struct GenerateFlags {
  bool resume = false;
  bool force = false;
  bool progress = true;
};

data::GenerateReport generate_from_config(const config::Node& resolved, const PluginRecord& plugin,
                                          const PluginRegistry& registry, const GenerateFlags& flags);

}  // namespace loci::app
