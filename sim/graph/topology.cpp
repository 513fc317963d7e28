#include "sim/graph/topology.hpp"

#include <stdexcept>

namespace loci::sim::graph {

LOCI_DEFINE_REGISTRY(TopologyInfo, "topology")

SpatialGraph make_topology(const std::string& name, const GraphOptions& options,
                           const std::map<std::string, double>& params, Rng& rng) {
  const TopologyInfo& info = topology(name);
  if (options.dims() < 1 || options.dims() > 3)
    throw std::invalid_argument("topology '" + name + "': dims must be 1, 2 or 3, not " +
                                std::to_string(options.dims()));
  if (options.nodes() < 2) throw std::invalid_argument("topology '" + name + "': needs at least 2 nodes");
  return info.build(options, resolve_params(info.params, params, "topology '" + name + "'"), rng);
}

}  // namespace loci::sim::graph
