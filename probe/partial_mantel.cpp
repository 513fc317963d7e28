#include "probe/partial_mantel.hpp"

#include <Eigen/QR>

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "probe/token_permutation.hpp"

namespace loci::probe {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// v less its least-squares fit on the orthonormal columns `q` (an intercept and the covariates' ranks).
Eigen::VectorXd residual(const Eigen::MatrixXd& q, const Eigen::VectorXd& v) { return v - q * (q.transpose() * v); }

double correlation_of_residuals(const Eigen::VectorXd& unit, const Eigen::VectorXd& r) {
  const double n = r.norm();
  return n > 0 ? unit.dot(r) / n : kNaN;
}

}  // namespace

Eigen::MatrixXd without_tokens(const Eigen::MatrixXd& m, const std::vector<Eigen::Index>& tokens) {
  std::vector<Eigen::Index> keep;
  for (Eigen::Index i = 0; i < m.rows(); ++i)
    if (std::find(tokens.begin(), tokens.end(), i) == tokens.end()) keep.push_back(i);
  const auto n = static_cast<Eigen::Index>(keep.size());
  Eigen::MatrixXd out(n, n);
  for (Eigen::Index i = 0; i < n; ++i)
    for (Eigen::Index j = 0; j < n; ++j)
      out(i, j) = m(keep[static_cast<std::size_t>(i)], keep[static_cast<std::size_t>(j)]);
  return out;
}

std::vector<Eigen::MatrixXd> pair_covariates(const Eigen::VectorXd& q) {
  const Eigen::Index t = q.size();
  Eigen::MatrixXd sum(t, t), gap(t, t);
  for (Eigen::Index i = 0; i < t; ++i)
    for (Eigen::Index j = 0; j < t; ++j) sum(i, j) = q(i) + q(j), gap(i, j) = std::abs(q(i) - q(j));
  return {sum, gap};
}

PartialMantelResult partial_mantel_test(const std::vector<Eigen::MatrixXd>& pe_distances, const Eigen::MatrixXd& truth,
                                        const std::vector<Eigen::MatrixXd>& covariates, int permutations,
                                        std::uint64_t seed, double tie_tolerance) {
  const Eigen::Index t = truth.rows();
  if (truth.cols() != t) throw std::invalid_argument("partial_mantel_test: the true distance matrix is not square");
  for (const auto& d : pe_distances)
    if (d.rows() != t || d.cols() != t)
      throw std::invalid_argument("partial_mantel_test: a PE distance matrix is not T x T");
  for (const auto& c : covariates)
    if (c.rows() != t || c.cols() != t) throw std::invalid_argument("partial_mantel_test: a covariate is not T x T");
  PartialMantelResult r;
  r.permutations = permutations;
  if (pe_distances.empty() || t < 4) {
    r.observed = r.p_value = kNaN;
    return r;
  }
  const std::vector<Eigen::Index> identity = identity_order(t);
  const Eigen::Index pairs = t * (t - 1) / 2;

  // An intercept and each covariate's ranks, made orthonormal once: residualising is then two products.
  std::vector<Eigen::VectorXd> columns{Eigen::VectorXd::Ones(pairs)};
  for (const auto& c : covariates) {
    const Eigen::VectorXd ranks = average_ranks(upper_triangle(c, identity), tie_tolerance);
    if (ranks.maxCoeff() - ranks.minCoeff() > 0) columns.push_back(ranks);
  }
  r.covariates = static_cast<int>(columns.size()) - 1;
  Eigen::MatrixXd design(pairs, static_cast<Eigen::Index>(columns.size()));
  for (std::size_t k = 0; k < columns.size(); ++k) design.col(static_cast<Eigen::Index>(k)) = columns[k];
  const Eigen::HouseholderQR<Eigen::MatrixXd> qr(design);
  const Eigen::MatrixXd q = qr.householderQ() * Eigen::MatrixXd::Identity(pairs, design.cols());

  std::vector<Eigen::VectorXd> pe_units;
  for (const auto& d : pe_distances) {
    const Eigen::VectorXd ranks = average_ranks(upper_triangle(d, identity), tie_tolerance);
    const Eigen::VectorXd res = residual(q, ranks);
    const double n = res.norm();
    // Nothing left beyond rounding once the covariates are out: the PE's distances are a function of them.
    if (!(n > 1e-9 * (ranks.array() - ranks.mean()).matrix().norm())) {
      r.observed = r.p_value = kNaN;
      return r;
    }
    pe_units.push_back(res / n);
  }
  const Eigen::MatrixXd truth_ranks =
      symmetric_from_upper(average_ranks(upper_triangle(truth, identity), tie_tolerance), t);
  auto statistic = [&](const std::vector<Eigen::Index>& order) {
    const Eigen::VectorXd res = residual(q, upper_triangle(truth_ranks, order));
    double sum = 0;
    for (const auto& u : pe_units) sum += correlation_of_residuals(u, res);
    return sum / static_cast<double>(pe_units.size());
  };
  r.observed = statistic(identity);
  if (!std::isfinite(r.observed)) {
    r.p_value = kNaN;
    return r;
  }
  const std::vector<double> null = permuted_statistics(statistic, t, permutations, seed);
  const auto at_least =
      std::count_if(null.begin(), null.end(), [&](double v) { return std::isfinite(v) && v >= r.observed - 1e-12; });
  r.p_value = (1.0 + at_least) / (1.0 + permutations);
  return r;
}

}  // namespace loci::probe
