// The topology registry: name -> builder. A topology is one .cpp file that registers itself with its parameters
// (see lattice.cpp); the plugin, its config schema and its docs pick it up from here.
#pragma once

#include <cstddef>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "core/option.hpp"
#include "core/params.hpp"
#include "core/registry.hpp"
#include "sim/graph/graph.hpp"
#include "sim/random/stream.hpp"

namespace loci::sim::graph {

// What every topology is asked for; the rest is in its own parameters.
class GraphOptions {
  LOCI_OPTION(std::size_t, nodes) = 100;
  LOCI_OPTION(int, dims) = 2;  // 1 (a line or ring), 2 or 3
};

struct TopologyInfo {
  std::string name;
  std::string doc;  // one line: what the topology is and how it uses the coordinates
  std::vector<ParamSpec> params;
  // Throws std::invalid_argument for options it cannot honour (e.g. a lattice of 99 nodes in 2D).
  std::function<SpatialGraph(const GraphOptions&, const Params&, Rng&)> build;
};

LOCI_DECLARE_REGISTRY(TopologyInfo)
using TopologyRegistry = Registry<TopologyInfo>;

// std::invalid_argument listing the registered names when `name` is not one of them.
inline const TopologyInfo& topology(const std::string& name) { return TopologyRegistry::instance().at(name); }
inline std::vector<std::string> topology_names() { return TopologyRegistry::instance().names(); }  // sorted

// Builds `name` with its defaults overridden by `params`; every random draw comes from `rng`.
SpatialGraph make_topology(const std::string& name, const GraphOptions& options,
                           const std::map<std::string, double>& params, Rng& rng);

}  // namespace loci::sim::graph
