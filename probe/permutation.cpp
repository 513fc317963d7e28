#include "probe/permutation.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <random>
#include <stdexcept>

namespace loci::probe {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

Eigen::VectorXd upper(const Eigen::MatrixXd& m, const std::vector<Eigen::Index>& order) {
  const Eigen::Index t = m.rows();
  Eigen::VectorXd v(t * (t - 1) / 2);
  Eigen::Index k = 0;
  for (Eigen::Index i = 0; i < t; ++i)
    for (Eigen::Index j = i + 1; j < t; ++j) v(k++) = m(order[static_cast<std::size_t>(i)], order[static_cast<std::size_t>(j)]);
  return v;
}

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
  std::vector<Eigen::Index> identity(static_cast<std::size_t>(t));
  std::iota(identity.begin(), identity.end(), 0);
  // Ranks of each side once: permuting tokens permutes the truth's pairs, so its ranks move with them.
  Eigen::MatrixXd truth_ranks(t, t);
  {
    const Eigen::VectorXd ranks = average_ranks(upper(truth, identity), tie_tolerance);
    Eigen::Index k = 0;
    for (Eigen::Index i = 0; i < t; ++i)
      for (Eigen::Index j = i + 1; j < t; ++j) truth_ranks(i, j) = truth_ranks(j, i) = ranks(k++);
    truth_ranks.diagonal().setZero();
  }
  std::vector<Eigen::VectorXd> pe_units;
  for (const auto& d : pe_distances) pe_units.push_back(unit_centred(average_ranks(upper(d, identity), tie_tolerance)));
  auto statistic = [&](const std::vector<Eigen::Index>& order) {
    const Eigen::VectorXd truth_vec = upper(truth_ranks, order);
    double sum = 0;
    for (const auto& u : pe_units) sum += standardised_dot(u, truth_vec);
    return sum / static_cast<double>(pe_units.size());
  };
  r.observed = statistic(identity);
  if (!std::isfinite(r.observed)) {
    r.p_value = kNaN;
    return r;
  }
  std::mt19937_64 rng(seed);
  std::vector<Eigen::Index> order = identity;
  int at_least = 0;
  std::vector<double> null;
  null.reserve(static_cast<std::size_t>(std::max(permutations, 0)));
  for (int p = 0; p < permutations; ++p) {
    std::shuffle(order.begin(), order.end(), rng);
    const double v = statistic(order);
    null.push_back(v);
    // The same tolerance as the ranks: a permutation that maps the grid onto itself scores the observed value.
    if (v >= r.observed - 1e-12) ++at_least;
  }
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
