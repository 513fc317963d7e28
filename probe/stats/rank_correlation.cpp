#include "probe/stats/rank_correlation.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <random>

#include "probe/correlation.hpp"

namespace loci::probe {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr std::size_t kMaxExactRuns = 8;  // 8! = 40,320 pairings

Eigen::VectorXd as_vector(const std::vector<double>& v) {
  return Eigen::Map<const Eigen::VectorXd>(v.data(), static_cast<Eigen::Index>(v.size()));
}

}  // namespace

RankCorrelation spearman_test(const std::vector<double>& x_in, const std::vector<double>& y_in,
                              std::int64_t monte_carlo, int resamples, std::uint64_t seed) {
  std::vector<double> x, y;
  for (std::size_t i = 0; i < x_in.size() && i < y_in.size(); ++i)
    if (std::isfinite(x_in[i]) && std::isfinite(y_in[i])) x.push_back(x_in[i]), y.push_back(y_in[i]);
  RankCorrelation r;
  r.n = x.size();
  if (r.n < 3) {
    r.rho = r.p_value = kNaN;
    r.ci = {kNaN, kNaN};
    return r;
  }
  // Ranks with exact ties only, as scipy.stats.spearmanr ranks.
  const Eigen::VectorXd rx = average_ranks(as_vector(x), 0), ry = average_ranks(as_vector(y), 0);
  r.rho = pearson(rx, ry);
  if (!std::isfinite(r.rho)) {
    r.p_value = kNaN;
    r.ci = {kNaN, kNaN};
    return r;
  }
  // Permuting y's ranks against x's changes only the cross product, so rho follows from it.
  const double n = static_cast<double>(r.n);
  const double mx = rx.mean(), my = ry.mean();
  const double scale = std::sqrt((rx.array() - mx).square().sum() * (ry.array() - my).square().sum());
  std::vector<double> yr(ry.data(), ry.data() + ry.size());
  auto rho_of = [&](const std::vector<double>& ys) {
    double cross = 0;
    for (std::size_t i = 0; i < ys.size(); ++i) cross += rx[static_cast<Eigen::Index>(i)] * ys[i];
    return (cross - n * mx * my) / scale;
  };
  const double tolerance = std::abs(r.rho) * 100 * std::numeric_limits<double>::epsilon();
  std::int64_t at_least = 0, at_most = 0, total = 0;
  auto add = [&](double rho) {
    at_least += rho >= r.rho - tolerance;
    at_most += rho <= r.rho + tolerance;
    ++total;
  };
  r.exact = r.n <= kMaxExactRuns;
  if (r.exact) {
    std::vector<std::size_t> order(r.n);
    std::iota(order.begin(), order.end(), 0);
    std::vector<double> ys(r.n);
    do {
      for (std::size_t i = 0; i < r.n; ++i) ys[i] = yr[order[i]];
      add(rho_of(ys));
    } while (std::next_permutation(order.begin(), order.end()));
  } else {
    std::mt19937_64 rng(seed);
    std::vector<double> ys = yr;
    for (std::int64_t k = 0; k < monte_carlo; ++k) {
      std::shuffle(ys.begin(), ys.end(), rng);
      add(rho_of(ys));
    }
  }
  const double extra = r.exact ? 0.0 : 1.0;
  const double greater = (static_cast<double>(at_least) + extra) / (static_cast<double>(total) + extra);
  const double less = (static_cast<double>(at_most) + extra) / (static_cast<double>(total) + extra);
  r.p_value = std::min(1.0, 2.0 * std::min(greater, less));

  // Percentile bootstrap over runs; a resample with a constant side has no rho and is left out.
  std::mt19937_64 rng(seed + 1);
  std::uniform_int_distribution<std::size_t> pick(0, r.n - 1);
  std::vector<double> rhos;
  Eigen::VectorXd bx(static_cast<Eigen::Index>(r.n)), by(static_cast<Eigen::Index>(r.n));
  for (int k = 0; k < resamples; ++k) {
    for (Eigen::Index i = 0; i < bx.size(); ++i) {
      const std::size_t j = pick(rng);
      bx[i] = x[j];
      by[i] = y[j];
    }
    const double rho = spearman(bx, by, 0);
    if (std::isfinite(rho)) rhos.push_back(rho);
  }
  if (rhos.size() < 2) {
    r.ci = {kNaN, kNaN};
    return r;
  }
  std::sort(rhos.begin(), rhos.end());
  auto at = [&](double q) {
    const double k = std::clamp(std::ceil(q * static_cast<double>(rhos.size())) - 1.0, 0.0,
                                static_cast<double>(rhos.size() - 1));
    return rhos[static_cast<std::size_t>(k)];
  };
  r.ci = {at(0.025), at(0.975)};
  return r;
}

}  // namespace loci::probe
