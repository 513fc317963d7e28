#include "probe/oracle.hpp"

#include <cmath>
#include <stdexcept>

namespace loci::probe {

Eigen::MatrixXd sinusoidal_oracle(const Eigen::MatrixXd& coords, Eigen::Index width, const OracleOptions& options) {
  const Eigen::Index axes = coords.cols();
  const Eigen::Index share = axes > 0 ? 2 * (width / (2 * axes)) : 0;
  if (share == 0)
    throw std::invalid_argument("sinusoidal_oracle: width " + std::to_string(width) + " is too small for " +
                                std::to_string(axes) + " coordinate axes");
  Eigen::MatrixXd out = Eigen::MatrixXd::Zero(coords.rows(), width);
  for (Eigen::Index a = 0; a < axes; ++a)
    for (Eigen::Index k = 0; k < share / 2; ++k) {
      const double freq = std::pow(options.base, -2.0 * static_cast<double>(k) / static_cast<double>(share));
      for (Eigen::Index t = 0; t < coords.rows(); ++t) {
        const double angle = coords(t, a) * options.coordinate_scale * freq;
        out(t, a * share + 2 * k) = std::sin(angle);
        out(t, a * share + 2 * k + 1) = std::cos(angle);
      }
    }
  return out;
}

}  // namespace loci::probe
