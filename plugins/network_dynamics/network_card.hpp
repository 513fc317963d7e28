// What a network_dynamics dataset says about itself: the dataset card's prose and `loci inspect --show` text.
#pragma once

#include <string>

#include "datasets/spec.hpp"
#include "network_options.hpp"
#include "sim/graph/graph.hpp"

namespace loci::network_dynamics {

struct GraphFacts {
  std::size_t edges = 0;
  std::size_t components = 0;
  double mean_degree = 0;
};

std::string card_prose(const NetworkOptions& o, const GraphFacts& facts);

// One line per node (the first `max_nodes`): its coordinates and its window as a strip of shades.
std::string render_window(const NetworkOptions& o, const sim::graph::SpatialGraph& g,
                          const datasets::SampleSlots& sample, std::size_t max_nodes = 12);

}  // namespace loci::network_dynamics
