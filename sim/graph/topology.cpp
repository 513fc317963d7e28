#include "sim/graph/topology.hpp"

#include <mutex>
#include <stdexcept>

namespace loci::sim::graph {

namespace {

// Function-local so that registrations from any translation unit's static initialisers find it constructed.
std::map<std::string, TopologyInfo>& registry() {
  static std::map<std::string, TopologyInfo> r;
  return r;
}

std::mutex& registry_mutex() {
  static std::mutex m;
  return m;
}

}  // namespace

void register_topology(TopologyInfo info) {
  std::lock_guard<std::mutex> lock(registry_mutex());
  const std::string name = info.name;
  if (!registry().emplace(name, std::move(info)).second)
    throw std::logic_error("topology '" + name + "' registered twice");
}

const TopologyInfo& topology(const std::string& name) {
  std::lock_guard<std::mutex> lock(registry_mutex());
  const auto it = registry().find(name);
  if (it != registry().end()) return it->second;
  std::string known;
  for (const auto& [n, info] : registry()) known += (known.empty() ? "" : ", ") + n;
  throw std::invalid_argument("unknown topology '" + name + "' (known: " + known + ")");
}

std::vector<std::string> topology_names() {
  std::lock_guard<std::mutex> lock(registry_mutex());
  std::vector<std::string> out;
  for (const auto& [name, info] : registry()) out.push_back(name);
  return out;
}

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
