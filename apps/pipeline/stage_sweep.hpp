// A pipeline's train stage as a sweep: what `loci run` runs here and what `loci run --emit slurm` hands to a job array.
#pragma once

#include <filesystem>
#include <utility>

#include "apps/sweep/sweep.hpp"
#include "core/config/node.hpp"

namespace loci::apps {

// The resolved train stage without its `sweep:` key, and that sweep's points (the union of its grids).
std::pair<config::Node, Sweep> stage_sweep(const config::Node& train);

// The sweep request of `stage`: its config written once to <folder>/train.yaml, every run of the sweep starting
// from it, `jobs` at a time.
SweepRequest sweep_request(const config::Node& stage, const Sweep& sweep, const std::filesystem::path& folder);

}  // namespace loci::apps
