#include <stdexcept>
#include <string>
#include <vector>

#include "sim/graph/topologies.hpp"
#include "sim/graph/topology.hpp"

namespace loci::sim::graph {

// Written out rather than taken from Boost's small_world_iterator, which can emit parallel edges and so changes
// the edge count; rewiring here only ever moves an edge to a free slot.
SpatialGraph watts_strogatz(const WattsStrogatzOptions& o, Rng& rng) {
  const std::size_t n = o.nodes();
  if (o.k() % 2 != 0 || o.k() < 2 || o.k() >= n)
    throw std::invalid_argument("watts_strogatz: k must be even, at least 2 and below nodes (k = " +
                                std::to_string(o.k()) + ", nodes = " + std::to_string(n) + ")");
  Eigen::MatrixXd ring(static_cast<Eigen::Index>(n), 1);
  for (std::size_t i = 0; i < n; ++i) ring(static_cast<Eigen::Index>(i), 0) = static_cast<double>(i) / n;
  SpatialGraph g(std::move(ring), true);
  const std::size_t half = o.k() / 2;
  for (std::size_t lap = 1; lap <= half; ++lap)
    for (std::size_t i = 0; i < n; ++i) add_edge(g, i, (i + lap) % n);

  std::vector<std::size_t> free;
  for (std::size_t lap = 1; lap <= half; ++lap) {
    for (std::size_t i = 0; i < n; ++i) {
      if (!rng.bernoulli(o.p())) continue;
      const std::size_t old = (i + lap) % n;
      free.clear();
      for (std::size_t w = 0; w < n; ++w)
        if (w != i && !g.has_edge(i, w)) free.push_back(w);
      if (free.empty()) continue;
      const std::size_t w = free[rng.below(free.size())];
      boost::remove_edge(i, old, g.graph);
      add_edge(g, i, w);
    }
  }
  return g;
}

namespace {

LOCI_REGISTER(
    TopologyInfo,
    {"watts_strogatz",
     "Watts-Strogatz small world: a ring (dims must be 1) of k-nearest links, each rewired with probability p",
     {ParamSpec::integer("k", static_cast<long long>(WattsStrogatzOptions().k()),
                         "neighbours per node before rewiring (even)")
          .at_least(2),
      ParamSpec::real("p", WattsStrogatzOptions().p(), "rewiring probability per edge").within(0, 1)},
     [](const GraphOptions& common, const Params& p, Rng& rng) {
       if (common.dims() != 1)
         throw std::invalid_argument("watts_strogatz: nodes lie on a ring, so dims must be 1 (not " +
                                     std::to_string(common.dims()) + ")");
       return watts_strogatz(
           WattsStrogatzOptions().nodes(common.nodes()).k(static_cast<std::size_t>(p.get_int("k"))).p(p.get("p")), rng);
     }});

}  // namespace

}  // namespace loci::sim::graph
