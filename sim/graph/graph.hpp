// A graph whose nodes have true coordinates. The edges live in a Boost.Graph adjacency_list whose out-edge lists are
// sets, so a parallel edge cannot exist; add_edge() also refuses self-loops. Every topology builds through it, which
// is what makes the graphs simple by construction (Boost's own generators can emit duplicates).
#pragma once

#include <Eigen/Dense>
#include <boost/graph/adjacency_list.hpp>
#include <cstddef>
#include <vector>

namespace loci::sim::graph {

using BoostGraph = boost::adjacency_list<boost::setS, boost::vecS, boost::undirectedS>;

struct SpatialGraph {
  Eigen::MatrixXd positions;  // nodes x dims, in the unit cube [0, 1)^dims
  bool periodic = false;      // each axis wraps at 1 (a ring, a torus): distances take the shorter way round
  BoostGraph graph;
  std::vector<int> groups;  // a community per node where the topology has them (block model), else empty

  SpatialGraph() = default;
  explicit SpatialGraph(Eigen::MatrixXd pos, bool wraps = false)
      : positions(std::move(pos)), periodic(wraps), graph(static_cast<std::size_t>(positions.rows())) {}

  std::size_t nodes() const { return boost::num_vertices(graph); }
  int dims() const { return static_cast<int>(positions.cols()); }
  std::size_t edges() const { return boost::num_edges(graph); }
  bool has_edge(std::size_t u, std::size_t v) const { return boost::edge(u, v, graph).second; }
};

// Adds the undirected edge {u, v}; false (and nothing added) for a self-loop or an edge already present.
bool add_edge(SpatialGraph& g, std::size_t u, std::size_t v);

// Visits every unordered pair u < v once, in a fixed order (u, then v), and adds the edge where joined(u, v): the
// pair order is what makes a random topology depend only on its stream, one draw a pair.
template <class Joined>
void join_pairs(SpatialGraph& g, Joined joined) {
  for (std::size_t u = 0; u < g.nodes(); ++u)
    for (std::size_t v = u + 1; v < g.nodes(); ++v)
      if (joined(u, v)) add_edge(g, u, v);
}

// Euclidean distance between two nodes' coordinates, the short way round on periodic axes.
double distance(const SpatialGraph& g, std::size_t u, std::size_t v);

std::vector<std::size_t> degrees(const SpatialGraph& g);

// Each undirected edge once, as (smaller, larger) node index, sorted.
std::vector<std::pair<std::size_t, std::size_t>> edge_list(const SpatialGraph& g);

}  // namespace loci::sim::graph
