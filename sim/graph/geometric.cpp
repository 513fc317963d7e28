#include "sim/graph/placement.hpp"
#include "sim/graph/topologies.hpp"
#include "sim/graph/topology.hpp"

namespace loci::sim::graph {

SpatialGraph random_geometric(const GeometricOptions& o, Rng& rng) {
  SpatialGraph g(uniform_positions(o.nodes(), o.dims(), rng), o.periodic());
  join_pairs(g, [&](std::size_t u, std::size_t v) { return distance(g, u, v) < o.radius(); });
  return g;
}

namespace {

LOCI_REGISTER(
    TopologyInfo,
    {"geometric",
     "random geometric graph: uniform points in the unit cube, joined when closer than radius",
     {ParamSpec::real("radius", GeometricOptions().radius(), "connection radius (unit-cube lengths)").at_least(0),
      ParamSpec::flag("periodic", GeometricOptions().periodic(),
                      "measure distances on the torus (no boundary effects)")},
     [](const GraphOptions& common, const Params& p, Rng& rng) {
       return random_geometric(GeometricOptions()
                                   .nodes(common.nodes())
                                   .dims(common.dims())
                                   .radius(p.get("radius"))
                                   .periodic(p.get_flag("periodic")),
                               rng);
     }});

}  // namespace

}  // namespace loci::sim::graph
