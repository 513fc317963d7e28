// `loci run --dry-run` and `loci train --dry-run`: every stage and run a command would make or keep, and why,
// decided by the same records a real start reads (index.json, the journal, identity.json, summary.json and the
// checkpoints), without writing anything.
#pragma once

#include <string>
#include <vector>

#include "apps/sweep/sweep.hpp"
#include "core/config/node.hpp"
#include "plugins/api/plugin_loader.hpp"

namespace loci::apps {

// What `loci generate --resume` would do with the folder of a resolved generator config, as one line.
std::string dry_run_generate(const config::Node& resolved, const plugins::PluginRecord& plugin,
                             const plugins::PluginRegistry& registry);

// Whether a line of dry_run_generate says the stage would be refused.
bool dry_run_refused(const std::string& line);

// One line per point of a sweep of `stage` (a training config without `sweep:`): "[3/27] <folder>: <what>".
// Returns how many points would be refused.
std::size_t dry_run_sweep(const config::Node& stage, const std::string& where, const Sweep& sweep,
                          const std::string& out, plugins::PluginRegistry& registry);

}  // namespace loci::apps
