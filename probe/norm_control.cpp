// The norm-only control of Procrustes: a random Gaussian PE of the same shape and Frobenius norm as the PE probed,
// scored against the oracle. Its raw residual depends on the norm alone, so where a PE's raw residual tracks
// accuracy across sigma no better than this control's does, the correlation is the PE's size, not its shape.
#include <cmath>
#include <limits>
#include <random>

#include "probe/procrustes.hpp"
#include "probe/registry.hpp"

namespace loci::probe {
namespace {

ProbeValues norm_control(const Eigen::MatrixXd& pe, const ProbeContext& c) {
  constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
  if (c.oracle.size() == 0 || c.oracle.rows() != pe.rows())
    return {{"control_procrustes_oracle_residual", kNaN}, {"control_procrustes_oracle_disparity", kNaN}};
  std::mt19937_64 rng(0);  // one fixed draw: the control varies with the norm only
  std::normal_distribution<double> normal(0.0, 1.0);
  Eigen::MatrixXd r(pe.rows(), pe.cols());
  for (Eigen::Index j = 0; j < r.cols(); ++j)
    for (Eigen::Index i = 0; i < r.rows(); ++i) r(i, j) = normal(rng);
  const double norm = pe.norm();
  r *= norm > 0 ? norm / r.norm() : 0.0;
  return {{"control_procrustes_oracle_residual", procrustes_residual(r, c.oracle)},
          {"control_procrustes_oracle_disparity", procrustes_disparity(r, c.oracle)}};
}

}  // namespace

LOCI_REGISTER(ProbeInfo, {"norm_control",
                          "Procrustes to the oracle of a random Gaussian PE with the probed PE's shape and norm",
                          {"control_procrustes_oracle_residual", "control_procrustes_oracle_disparity"},
                          norm_control});

}  // namespace loci::probe
