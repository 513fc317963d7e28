// A pipeline config (`loci run`): one folder, `out:`, and stages that are themselves plugin configs.
//   out: runs/quickstart
//   generate: {generator: lst_grid, ...}      # its out defaults to <out>/data
//   generate: {..., sweep: [seed=0,1,2]}      # three datasets, <out>/data/seed=0 ...; the train grid runs on each
//   train: {trainer: torch_trainer, sweep: [model.pe.init.std=0.2,2.0], ...}   # data = generate's out
// Overrides address a stage by its name: `generate.splits.train=600`, `train.train.epochs=10`.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "core/config/node.hpp"
#include "plugins/api/plugin_loader.hpp"

namespace loci::apps {

// Every stage resolved against its plugin's schema; the result is what `loci config show` prints.
config::Node resolve_pipeline(const config::Node& raw, const std::vector<std::string>& overrides,
                              plugins::PluginRegistry& registry, const std::filesystem::path& file);

// The datasets a resolved generate stage makes: one, or one per point of its sweep.
std::vector<config::Node> generate_configs(const config::Node& generate);

}  // namespace loci::apps
