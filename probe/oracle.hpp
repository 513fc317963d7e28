// The oracle PE of a set of true coordinates: fixed sinusoids of each axis, the width split evenly over the axes
// (models/pe/sinusoidal_nd, and the paper's 2d-fixed PE up to the order of its columns, which no Procrustes
// comparison sees). Here without LibTorch so that analyses can score any saved PE against it.
#pragma once

#include <Eigen/Core>

namespace loci::probe {

struct OracleOptions {
  double base = 10000.0;        // frequencies base^(-2k/share), share = the columns each axis gets
  double coordinate_scale = 1;  // coordinates are multiplied by this first (model.pe.coordinate_scale)
};

// coords: T x k; returns T x width, axis a filling columns [a*share, (a+1)*share) with (sin, cos) pairs,
// share = 2 * floor(width / 2k), and zeros after. Throws std::invalid_argument when width < 2k.
Eigen::MatrixXd sinusoidal_oracle(const Eigen::MatrixXd& coords, Eigen::Index width, const OracleOptions& options = {});

}  // namespace loci::probe
