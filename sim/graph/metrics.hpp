// The dense per-dataset matrices a generator stores beside its samples (row-major, nodes x nodes), and summary
// numbers of a graph.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "sim/graph/graph.hpp"

namespace loci::sim::graph {

std::vector<std::uint8_t> adjacency_matrix(const SpatialGraph& g);

// Euclidean distance between coordinates (periodic axes the short way round).
std::vector<float> distance_matrix(const SpatialGraph& g);

// Shortest-path hop counts by breadth-first search from every node; -1 where no path exists.
std::vector<std::int32_t> hop_matrix(const SpatialGraph& g);

std::size_t connected_components(const SpatialGraph& g);

}  // namespace loci::sim::graph
