#include "sim/graph/placement.hpp"

#include <cmath>

namespace loci::sim::graph {

Eigen::MatrixXd uniform_positions(std::size_t nodes, int dims, Rng& rng) {
  Eigen::MatrixXd p(static_cast<Eigen::Index>(nodes), dims);
  for (Eigen::Index i = 0; i < p.rows(); ++i)
    for (int a = 0; a < dims; ++a) p(i, a) = rng.uniform();
  return p;
}

Eigen::MatrixXd grid_positions(std::size_t side, int dims) {
  std::size_t total = 1;
  for (int a = 0; a < dims; ++a) total *= side;
  Eigen::MatrixXd p(static_cast<Eigen::Index>(total), dims);
  for (std::size_t i = 0; i < total; ++i) {
    std::size_t rest = i;
    for (int a = dims - 1; a >= 0; --a) {
      p(static_cast<Eigen::Index>(i), a) = (static_cast<double>(rest % side) + 0.5) / static_cast<double>(side);
      rest /= side;
    }
  }
  return p;
}

std::size_t grid_side(std::size_t nodes, int dims) {
  if (nodes == 0 || dims < 1) return 0;
  const auto guess = static_cast<std::size_t>(std::llround(std::pow(static_cast<double>(nodes), 1.0 / dims)));
  for (std::size_t side = guess > 0 ? guess - 1 : 0; side <= guess + 1; ++side) {
    std::size_t p = 1;
    for (int a = 0; a < dims; ++a) p *= side;
    if (p == nodes) return side;
  }
  return 0;
}

}  // namespace loci::sim::graph
