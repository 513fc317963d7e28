#include <limits>
#include <stdexcept>

#include "sim/graph/placement.hpp"
#include "sim/graph/topologies.hpp"
#include "sim/graph/topology.hpp"

namespace loci::sim::graph {

SpatialGraph block_model(const BlockModelOptions& o, Rng& rng) {
  if (o.blocks() < 1) throw std::invalid_argument("block_model: blocks must be at least 1");
  SpatialGraph g(uniform_positions(o.nodes(), o.dims(), rng));
  g.groups.resize(g.nodes());
  if (o.spatial()) {
    const Eigen::MatrixXd centres = uniform_positions(o.blocks(), o.dims(), rng);
    for (std::size_t v = 0; v < g.nodes(); ++v) {
      double best = std::numeric_limits<double>::infinity();
      for (Eigen::Index c = 0; c < centres.rows(); ++c) {
        const double d = (g.positions.row(static_cast<Eigen::Index>(v)) - centres.row(c)).squaredNorm();
        if (d < best) best = d, g.groups[v] = static_cast<int>(c);
      }
    }
  } else {
    for (std::size_t v = 0; v < g.nodes(); ++v) g.groups[v] = static_cast<int>(v % o.blocks());
  }
  join_pairs(g, [&](std::size_t u, std::size_t v) {
    return rng.uniform() < (g.groups[u] == g.groups[v] ? o.p_in() : o.p_out());
  });
  return g;
}

namespace {

LOCI_REGISTER(
    TopologyInfo,
    {"block_model",
     "stochastic block model: p_in within a block, p_out between; spatial blocks are Voronoi cells of random centres",
     {ParamSpec::integer("blocks", static_cast<long long>(BlockModelOptions().blocks()),
                         "number of blocks (communities)")
          .at_least(1),
      ParamSpec::real("p_in", BlockModelOptions().p_in(), "edge probability within a block").within(0, 1),
      ParamSpec::real("p_out", BlockModelOptions().p_out(), "edge probability between blocks").within(0, 1),
      ParamSpec::flag("spatial", BlockModelOptions().spatial(),
                      "blocks are regions of space (else node i is in block i mod blocks)")},
     [](const GraphOptions& common, const Params& p, Rng& rng) {
       return block_model(BlockModelOptions()
                              .nodes(common.nodes())
                              .dims(common.dims())
                              .blocks(static_cast<std::size_t>(p.get_int("blocks")))
                              .p_in(p.get("p_in"))
                              .p_out(p.get("p_out"))
                              .spatial(p.get_flag("spatial")),
                          rng);
     }});

}  // namespace

}  // namespace loci::sim::graph
