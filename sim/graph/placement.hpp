// Where nodes sit: all in the unit cube [0, 1)^dims, so that distance thresholds mean the same in every topology.
#pragma once

#include <Eigen/Dense>
#include <cstddef>

#include "sim/random/stream.hpp"

namespace loci::sim::graph {

// Independent uniform points, drawn node by node, axis by axis.
Eigen::MatrixXd uniform_positions(std::size_t nodes, int dims, Rng& rng);

// The side^dims grid points (i + 0.5) / side in row-major order (the last axis varies fastest).
Eigen::MatrixXd grid_positions(std::size_t side, int dims);

// Exact integer root: side with side^dims == nodes, or 0 when there is none.
std::size_t grid_side(std::size_t nodes, int dims);

}  // namespace loci::sim::graph
