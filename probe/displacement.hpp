// The displacement account of a trained PE (issue 53): P(t) = P(0) + dP(t), where P(0) is a random draw and dP what
// training wrote. If the draw carries no geometry and training's write does not depend on which draw it met, the
// shape of P(t) is that of dP seen through noise of P(0)'s size: its RSA is what dP gives when added to any other
// draw of that size. Comparing that draw-free prediction with the trained PE's own RSA, over runs, says whether the
// effect of sigma on geometry is only dP's signal against the draw's noise.
#pragma once

#include <cstdint>

#include <Eigen/Core>

#include "probe/distance.hpp"

namespace loci::probe {

struct DisplacementAccount {
  double norm_ratio = 0;        // ||dP||_F / ||P(0)||_F
  double predicted_rsa = 0;     // mean RSA of Q + dP over `draws` isotropic Gaussian Q with ||Q||_F = ||P(0)||_F
  double predicted_rsa_sd = 0;  // its spread over those draws (the prediction's own noise)
  // <P(t), P(0)> / ||P(0)||^2: the share of the draw the trained PE keeps. Near 1 without weight decay; decay
  // shrinks it, and dP then holds -(1 - kept_draw) P(0), a copy of the draw the additive account cannot see through.
  double kept_draw = 0;
};

// initial and trained: T x d, the same shape; true_distance T x T. Deterministic in `seed`. Throws
// std::invalid_argument on mismatched shapes or fewer than 2 draws.
DisplacementAccount displacement_account(const Eigen::MatrixXd& initial, const Eigen::MatrixXd& trained,
                                         const Eigen::MatrixXd& true_distance, Metric metric, std::uint64_t seed,
                                         int draws = 20);

}  // namespace loci::probe
