// Where a pipeline's command-line key belongs. A stage is configured one level down (`train.train.epochs` is the
// trainer's `train.epochs`), so `train.epochs=2` or `epochs=2` is a near miss the nearest-word hint gets wrong;
// these name the full path instead.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/config/node.hpp"
#include "core/config/schema.hpp"
#include "plugins/api/plugin_loader.hpp"

namespace loci::apps {

// The schema of a generate or train stage's plugin (named in the stage after `args`), or null when none is found
// (its resolution then says why).
std::optional<config::Schema> stage_plugin_schema(const config::Node& stage, const std::vector<std::string>& args,
                                                  plugins::PluginRegistry& registry);

// Every key of `schema` whose dotted path ends with `path` as whole parts ("epochs" -> "train.epochs").
std::vector<std::string> keys_ending_with(const config::Schema& schema, const std::string& path);

// Throws for the first of a stage's command-line keys (`args`, the stage prefix taken off) that the stage's schema
// lacks but some of its keys end with: "the train stage has no key 'epochs'; did you mean 'train.train.epochs'?".
void check_stage_keys(const std::vector<std::string>& args, const std::string& stage, const config::Schema& schema);

// A key the pipeline itself lacks, with the full paths of the stage keys that end with it ("did you mean
// 'train.train.lr'?"), or "" when none does. `stages`: each stage's name and schema.
std::string pipeline_key_hint(const std::string& arg,
                              const std::vector<std::pair<std::string, std::optional<config::Schema>>>& stages);

}  // namespace loci::apps
