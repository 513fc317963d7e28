#include "probe/stats/rank_correlation.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <numeric>
#include <random>
#include <stdexcept>
#include <string>

#include "probe/correlation.hpp"

namespace loci::probe {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr std::size_t kMaxExactRuns = 8;  // 8! = 40,320 pairings

Eigen::VectorXd as_vector(const std::vector<double>& v) {
  return Eigen::Map<const Eigen::VectorXd>(v.data(), static_cast<Eigen::Index>(v.size()));
}

// One stratum's ranks, for the within-strata statistic.
struct Stratum {
  Eigen::VectorXd rx;
  std::vector<double> ry;
  double mx = 0, my = 0, scale = 0;
  double rho_of(const std::vector<double>& ys) const {
    double cross = 0;
    for (std::size_t i = 0; i < ys.size(); ++i) cross += rx[static_cast<Eigen::Index>(i)] * ys[i];
    return (cross - static_cast<double>(ys.size()) * mx * my) / scale;
  }
};

RankCorrelation invalid(std::size_t n, std::size_t strata) {
  RankCorrelation r;
  r.n = n;
  r.strata = strata;
  r.rho = r.p_value = kNaN;
  r.ci = {kNaN, kNaN};
  return r;
}

// Blocks of runs that share a draw or a dataset: the statistic is the mean of the within-stratum Spearman rhos,
// weighted by stratum size (Page's L test for ordered treatments in blocks, read as a correlation), y is permuted
// within each stratum and the bootstrap resamples strata. A stratum whose x or y is constant carries no ranking and
// is left out.
RankCorrelation within_strata_test(const std::vector<double>& x, const std::vector<double>& y,
                                   const std::vector<std::size_t>& label, std::int64_t monte_carlo, int resamples,
                                   std::uint64_t seed) {
  std::map<std::size_t, std::vector<std::size_t>> members;
  for (std::size_t i = 0; i < label.size(); ++i) members[label[i]].push_back(i);
  std::vector<Stratum> strata;
  for (const auto& [id, m] : members) {
    if (m.size() < 2) continue;
    std::vector<double> xs, ys;
    for (std::size_t i : m) xs.push_back(x[i]), ys.push_back(y[i]);
    Stratum s;
    s.rx = average_ranks(as_vector(xs), 0);
    const Eigen::VectorXd ry = average_ranks(as_vector(ys), 0);
    s.ry.assign(ry.data(), ry.data() + ry.size());
    s.mx = s.rx.mean(), s.my = ry.mean();
    s.scale = std::sqrt((s.rx.array() - s.mx).square().sum() * (ry.array() - s.my).square().sum());
    if (!(s.scale > 0)) continue;
    strata.push_back(std::move(s));
  }
  if (strata.empty()) return invalid(x.size(), members.size());
  auto statistic = [](const std::vector<const Stratum*>& chosen, const std::vector<double>& rhos) {
    double sum = 0, weight = 0;
    for (std::size_t k = 0; k < chosen.size(); ++k) {
      const double w = static_cast<double>(chosen[k]->ry.size());
      sum += w * rhos[k], weight += w;
    }
    return sum / weight;
  };
  std::vector<const Stratum*> all;
  std::vector<double> rhos;
  for (const auto& s : strata) all.push_back(&s), rhos.push_back(s.rho_of(s.ry));
  RankCorrelation r;
  r.n = x.size();
  r.strata = members.size();
  r.exact = false;
  r.rho = statistic(all, rhos);

  const double tolerance = std::abs(r.rho) * 100 * std::numeric_limits<double>::epsilon() + 1e-12;
  std::int64_t at_least = 0, at_most = 0;
  std::mt19937_64 rng(seed);
  std::vector<std::vector<double>> shuffled;
  for (const auto& s : strata) shuffled.push_back(s.ry);
  std::vector<double> permuted(strata.size());
  for (std::int64_t k = 0; k < monte_carlo; ++k) {
    for (std::size_t j = 0; j < strata.size(); ++j) {
      std::shuffle(shuffled[j].begin(), shuffled[j].end(), rng);
      permuted[j] = strata[j].rho_of(shuffled[j]);
    }
    const double rho = statistic(all, permuted);
    at_least += rho >= r.rho - tolerance;
    at_most += rho <= r.rho + tolerance;
  }
  const double total = static_cast<double>(monte_carlo) + 1;
  r.p_value = std::min(1.0, 2.0 * std::min((at_least + 1.0) / total, (at_most + 1.0) / total));

  std::mt19937_64 boot(seed + 1);
  std::uniform_int_distribution<std::size_t> pick(0, strata.size() - 1);
  std::vector<double> resampled;
  std::vector<const Stratum*> chosen(strata.size());
  std::vector<double> chosen_rhos(strata.size());
  for (int k = 0; k < resamples; ++k) {
    for (std::size_t j = 0; j < strata.size(); ++j) {
      const std::size_t q = pick(boot);
      chosen[j] = &strata[q], chosen_rhos[j] = rhos[q];
    }
    resampled.push_back(statistic(chosen, chosen_rhos));
  }
  std::sort(resampled.begin(), resampled.end());
  auto at = [&](double q) {
    const double i = std::clamp(std::ceil(q * static_cast<double>(resampled.size())) - 1.0, 0.0,
                                static_cast<double>(resampled.size() - 1));
    return resampled[static_cast<std::size_t>(i)];
  };
  r.ci = resamples > 0 ? Interval{at(0.025), at(0.975)} : Interval{kNaN, kNaN};
  return r;
}

}  // namespace

RankCorrelation spearman_test(const std::vector<double>& x_in, const std::vector<double>& y_in,
                              std::int64_t monte_carlo, int resamples, std::uint64_t seed,
                              const std::vector<std::size_t>& strata) {
  const std::size_t pairs = std::min(x_in.size(), y_in.size());
  if (!strata.empty() && strata.size() != pairs)
    throw std::invalid_argument("spearman_test: " + std::to_string(strata.size()) + " strata for " +
                                std::to_string(pairs) + " pairs");
  if (!strata.empty()) {
    std::vector<double> x, y;
    std::vector<std::size_t> label;
    for (std::size_t i = 0; i < pairs; ++i)
      if (std::isfinite(x_in[i]) && std::isfinite(y_in[i]))
        x.push_back(x_in[i]), y.push_back(y_in[i]), label.push_back(strata[i]);
    if (x.size() < 3) return invalid(x.size(), 0);
    return within_strata_test(x, y, label, monte_carlo, resamples, seed);
  }
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
    const double k =
        std::clamp(std::ceil(q * static_cast<double>(rhos.size())) - 1.0, 0.0, static_cast<double>(rhos.size() - 1));
    return rhos[static_cast<std::size_t>(k)];
  };
  r.ci = {at(0.025), at(0.975)};
  return r;
}

}  // namespace loci::probe
