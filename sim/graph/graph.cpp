#include "sim/graph/graph.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace loci::sim::graph {

bool add_edge(SpatialGraph& g, std::size_t u, std::size_t v) {
  if (u >= g.nodes() || v >= g.nodes()) throw std::out_of_range("add_edge: node index out of range");
  if (u == v) return false;
  return boost::add_edge(u, v, g.graph).second;
}

double distance(const SpatialGraph& g, std::size_t u, std::size_t v) {
  double sum = 0;
  for (int a = 0; a < g.dims(); ++a) {
    double d = std::abs(g.positions(static_cast<Eigen::Index>(u), a) - g.positions(static_cast<Eigen::Index>(v), a));
    if (g.periodic) d = std::min(d, 1.0 - d);
    sum += d * d;
  }
  return std::sqrt(sum);
}

std::vector<std::size_t> degrees(const SpatialGraph& g) {
  std::vector<std::size_t> out(g.nodes());
  for (std::size_t v = 0; v < out.size(); ++v) out[v] = boost::out_degree(v, g.graph);
  return out;
}

std::vector<std::pair<std::size_t, std::size_t>> edge_list(const SpatialGraph& g) {
  std::vector<std::pair<std::size_t, std::size_t>> out;
  out.reserve(g.edges());
  for (auto [it, end] = boost::edges(g.graph); it != end; ++it) {
    const std::size_t a = boost::source(*it, g.graph), b = boost::target(*it, g.graph);
    out.emplace_back(std::min(a, b), std::max(a, b));
  }
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace loci::sim::graph
