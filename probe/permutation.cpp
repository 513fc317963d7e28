#include "probe/permutation.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <stdexcept>

#include "probe/token_permutation.hpp"

namespace loci::probe {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// Pearson between a centred, unit-norm rank vector and another: the Spearman once both are ranks.
double standardised_dot(const Eigen::VectorXd& unit, const Eigen::VectorXd& ranks) {
  const Eigen::VectorXd c = ranks.array() - ranks.mean();
  const double n = c.norm();
  return n > 0 ? unit.dot(c) / n : kNaN;
}

Eigen::VectorXd unit_centred(const Eigen::VectorXd& v) {
  Eigen::VectorXd c = v.array() - v.mean();
  const double n = c.norm();
  return n > 0 ? Eigen::VectorXd(c / n) : Eigen::VectorXd(Eigen::VectorXd::Constant(v.size(), kNaN));
}

}  // namespace

MantelResult mantel_test(const std::vector<Eigen::MatrixXd>& pe_distances, const Eigen::MatrixXd& truth,
                         int permutations, std::uint64_t seed, double tie_tolerance) {
  const Eigen::Index t = truth.rows();
  if (truth.cols() != t) throw std::invalid_argument("mantel_test: the true distance matrix is not square");
  for (const auto& d : pe_distances)
    if (d.rows() != t || d.cols() != t) throw std::invalid_argument("mantel_test: a PE distance matrix is not T x T");
  MantelResult r;
  r.permutations = permutations;
  if (pe_distances.empty() || t < 3) {
    r.observed = r.p_value = kNaN;
    return r;
  }
  const std::vector<Eigen::Index> identity = identity_order(t);
  // Ranks of each side once: permuting tokens permutes the truth's pairs, so its ranks move with them.
  const Eigen::MatrixXd truth_ranks =
      symmetric_from_upper(average_ranks(upper_triangle(truth, identity), tie_tolerance), t);
  std::vector<Eigen::VectorXd> pe_units;
  for (const auto& d : pe_distances)
    pe_units.push_back(unit_centred(average_ranks(upper_triangle(d, identity), tie_tolerance)));
  auto statistic = [&](const std::vector<Eigen::Index>& order) {
    const Eigen::VectorXd truth_vec = upper_triangle(truth_ranks, order);
    double sum = 0;
    for (const auto& u : pe_units) sum += standardised_dot(u, truth_vec);
    return sum / static_cast<double>(pe_units.size());
  };
  r.observed = statistic(identity);
  if (!std::isfinite(r.observed)) {
    r.p_value = kNaN;
    return r;
  }
  std::vector<double> null = permuted_statistics(statistic, t, permutations, seed);
  // The same tolerance as the ranks: a permutation that maps the grid onto itself scores the observed value.
  const auto at_least = std::count_if(null.begin(), null.end(), [&](double v) { return v >= r.observed - 1e-12; });
  r.p_value = (1.0 + at_least) / (1.0 + permutations);
  if (!null.empty()) {
    r.null_mean = std::accumulate(null.begin(), null.end(), 0.0) / static_cast<double>(null.size());
    const auto q = null.begin() + static_cast<std::ptrdiff_t>(std::floor(0.95 * static_cast<double>(null.size() - 1)));
    std::nth_element(null.begin(), q, null.end());
    r.null_q95 = *q;
  }
  return r;
}

}  // namespace loci::probe
