#include "sim/graph/metrics.hpp"

#include <boost/graph/breadth_first_search.hpp>
#include <boost/graph/connected_components.hpp>

namespace loci::sim::graph {

std::vector<std::uint8_t> adjacency_matrix(const SpatialGraph& g) {
  const std::size_t n = g.nodes();
  std::vector<std::uint8_t> a(n * n, 0);
  for (const auto& [u, v] : edge_list(g)) a[u * n + v] = a[v * n + u] = 1;
  return a;
}

std::vector<float> distance_matrix(const SpatialGraph& g) {
  const std::size_t n = g.nodes();
  std::vector<float> d(n * n, 0.0f);
  for (std::size_t u = 0; u < n; ++u)
    for (std::size_t v = u + 1; v < n; ++v) d[u * n + v] = d[v * n + u] = static_cast<float>(distance(g, u, v));
  return d;
}

std::vector<std::int32_t> hop_matrix(const SpatialGraph& g) {
  const std::size_t n = g.nodes();
  std::vector<std::int32_t> hops(n * n, -1);
  std::vector<std::int32_t> depth(n);
  std::vector<boost::default_color_type> colour(n);
  for (std::size_t s = 0; s < n; ++s) {
    std::fill(depth.begin(), depth.end(), -1);
    depth[s] = 0;
    boost::breadth_first_search(
        g.graph, s,
        boost::visitor(boost::make_bfs_visitor(boost::record_distances(depth.data(), boost::on_tree_edge())))
            .color_map(boost::make_iterator_property_map(colour.begin(), boost::get(boost::vertex_index, g.graph))));
    std::copy(depth.begin(), depth.end(), hops.begin() + static_cast<std::ptrdiff_t>(s * n));
  }
  return hops;
}

std::size_t connected_components(const SpatialGraph& g) {
  if (g.nodes() == 0) return 0;
  std::vector<int> component(g.nodes());
  return static_cast<std::size_t>(boost::connected_components(g.graph, component.data()));
}

}  // namespace loci::sim::graph
