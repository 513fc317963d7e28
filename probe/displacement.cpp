#include "probe/displacement.hpp"

#include <cmath>
#include <random>
#include <stdexcept>

#include "probe/rsa.hpp"

namespace loci::probe {

DisplacementAccount displacement_account(const Eigen::MatrixXd& initial, const Eigen::MatrixXd& trained,
                                         const Eigen::MatrixXd& true_distance, Metric metric, std::uint64_t seed,
                                         int draws) {
  if (initial.rows() != trained.rows() || initial.cols() != trained.cols())
    throw std::invalid_argument("displacement_account: the initial and trained PE differ in shape");
  if (draws < 2) throw std::invalid_argument("displacement_account: at least 2 draws");
  const Eigen::MatrixXd moved = trained - initial;
  const double initial_norm = initial.norm();
  DisplacementAccount a;
  a.norm_ratio = initial_norm > 0 ? moved.norm() / initial_norm : std::nan("");
  a.kept_draw =
      initial_norm > 0 ? (trained.array() * initial.array()).sum() / (initial_norm * initial_norm) : std::nan("");
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> normal(0.0, 1.0);
  RsaOptions options;
  options.pe_metric = metric;
  double sum = 0, sum_sq = 0;
  for (int k = 0; k < draws; ++k) {
    Eigen::MatrixXd q(initial.rows(), initial.cols());
    for (Eigen::Index i = 0; i < q.size(); ++i) q.data()[i] = normal(rng);
    // Scaled to the draw's own norm, not its sigma: what matters is the noise the displacement is seen through.
    if (q.norm() > 0) q *= initial_norm / q.norm();
    const double r = rsa(q + moved, true_distance, options).spearman;
    sum += r;
    sum_sq += r * r;
  }
  a.predicted_rsa = sum / draws;
  a.predicted_rsa_sd = std::sqrt(std::max(0.0, (sum_sq - sum * sum / draws) / (draws - 1)));
  return a;
}

}  // namespace loci::probe
