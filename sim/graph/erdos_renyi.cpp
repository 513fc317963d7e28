#include "sim/graph/placement.hpp"
#include "sim/graph/topologies.hpp"
#include "sim/graph/topology.hpp"

namespace loci::sim::graph {

// Boost's erdos_renyi_iterator draws a fixed number of edges with repeats, which is not G(n, p); a Bernoulli draw
// per pair is, and at the sizes a dataset uses (hundreds of nodes) it costs nothing.
SpatialGraph erdos_renyi(const ErdosRenyiOptions& o, Rng& rng) {
  SpatialGraph g(uniform_positions(o.nodes(), o.dims(), rng));
  join_pairs(g, [&](std::size_t, std::size_t) { return rng.uniform() < o.p(); });
  return g;
}

namespace {

LOCI_REGISTER(
    TopologyInfo,
    {"erdos_renyi",
     "G(n, p): every pair independently with probability p; coordinates are uniform and unrelated to the edges",
     {ParamSpec::real("p", ErdosRenyiOptions().p(), "edge probability").within(0, 1)},
     [](const GraphOptions& common, const Params& p, Rng& rng) {
       return erdos_renyi(ErdosRenyiOptions().nodes(common.nodes()).dims(common.dims()).p(p.get("p")), rng);
     }});

}  // namespace

}  // namespace loci::sim::graph
