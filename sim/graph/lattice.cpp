#include <stdexcept>
#include <string>

#include "sim/graph/placement.hpp"
#include "sim/graph/topologies.hpp"
#include "sim/graph/topology.hpp"

namespace loci::sim::graph {

SpatialGraph lattice(const LatticeOptions& o) {
  if (o.side() < 2) throw std::invalid_argument("lattice: side must be at least 2");
  SpatialGraph g(grid_positions(o.side(), o.dims()), o.periodic());
  const std::size_t side = o.side();
  // Node index in row-major order: the last axis has stride 1, the one before it stride side, ...
  std::size_t stride = 1;
  for (int axis = o.dims() - 1; axis >= 0; --axis, stride *= side) {
    for (std::size_t v = 0; v < g.nodes(); ++v) {
      const std::size_t coord = (v / stride) % side;
      if (coord + 1 < side)
        add_edge(g, v, v + stride);
      else if (o.periodic())
        add_edge(g, v, v - coord * stride);  // wraps to coordinate 0; a side of 2 repeats an edge, which is refused
    }
  }
  return g;
}

namespace {

LOCI_REGISTER(TopologyInfo,
              {"lattice",
               "grid of side^dims nodes (nodes must be a square or cube), each joined to its 2*dims axis neighbours",
               {ParamSpec::flag("periodic", LatticeOptions().periodic(),
                                "wrap every axis (ring / torus), so every node has 2*dims neighbours")},
               [](const GraphOptions& common, const Params& p, Rng&) {
                 const std::size_t side = grid_side(common.nodes(), common.dims());
                 if (side == 0)
                   throw std::invalid_argument("lattice: nodes (" + std::to_string(common.nodes()) + ") must be side^" +
                                               std::to_string(common.dims()) + " for some side");
                 return lattice(LatticeOptions().side(side).dims(common.dims()).periodic(p.get_flag("periodic")));
               }});

}  // namespace

}  // namespace loci::sim::graph
