#include <algorithm>
#include <cmath>

#include "sim/graph/placement.hpp"
#include "sim/graph/topologies.hpp"
#include "sim/graph/topology.hpp"

namespace loci::sim::graph {

SpatialGraph waxman(const WaxmanOptions& o, Rng& rng) {
  SpatialGraph g(uniform_positions(o.nodes(), o.dims(), rng));
  double longest = 0;
  for (std::size_t u = 0; u < g.nodes(); ++u)
    for (std::size_t v = u + 1; v < g.nodes(); ++v) longest = std::max(longest, distance(g, u, v));
  const double scale = o.alpha() * longest;
  // One uniform per pair, in a fixed pair order, so the graph depends only on the stream.
  join_pairs(
      g, [&](std::size_t u, std::size_t v) { return rng.uniform() < o.beta() * std::exp(-distance(g, u, v) / scale); });
  return g;
}

namespace {

LOCI_REGISTER(
    TopologyInfo,
    {"waxman",
     "Waxman graph: uniform points, pair joined with probability beta*exp(-d/(alpha*L)), L the largest distance",
     {ParamSpec::real("alpha", WaxmanOptions().alpha(),
                      "distance scale as a fraction of L: smaller keeps edges shorter")
          .positive(),
      ParamSpec::real("beta", WaxmanOptions().beta(), "edge probability at distance 0: scales the density")
          .within(0, 1)},
     [](const GraphOptions& common, const Params& p, Rng& rng) {
       return waxman(
           WaxmanOptions().nodes(common.nodes()).dims(common.dims()).alpha(p.get("alpha")).beta(p.get("beta")), rng);
     }});

}  // namespace

}  // namespace loci::sim::graph
