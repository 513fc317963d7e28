// Making a dataset from a resolved generator config: shared by `loci generate` and the pipeline's generate stage.
#pragma once

#include <string>
#include <vector>

#include "core/config/node.hpp"
#include "plugins/api/plugin_loader.hpp"

namespace loci::apps {

struct GenerateFlags {
  bool resume = false;
  bool force = false;
  bool progress = true;
  bool merge = false;            // write index.json from a finished multi-process run's records; make nothing
  int rank = 0, world_size = 1;  // this process's share of a multi-process run (see core/launch.hpp)
};

// Keys of a generator config that never change the data, left out of what the dataset stores and compares.
const std::vector<std::string>& generator_identity_drop();
// The config a dataset records (config_yaml): without those keys and without the ones the generator does not use.
std::string recorded_config(const config::Node& resolved, const plugins::Generator& generator);

datasets::GenerateReport generate_from_config(const config::Node& resolved, const plugins::PluginRecord& plugin,
                                              const plugins::PluginRegistry& registry, const GenerateFlags& flags);

}  // namespace loci::apps
