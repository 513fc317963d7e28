#include "probe/stats/compare.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <random>
#include <stdexcept>

#include <boost/math/distributions/students_t.hpp>

namespace loci::probe {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr int kMaxExactPairs = 20;
constexpr double kMaxExactSplits = 200000;

double mean_of(const std::vector<double>& v) {
  return std::accumulate(v.begin(), v.end(), 0.0) / static_cast<double>(v.size());
}

double variance_of(const std::vector<double>& v) {
  const double m = mean_of(v);
  double ss = 0;
  for (double x : v) ss += (x - m) * (x - m);
  return ss / static_cast<double>(v.size() - 1);
}

std::vector<double> finite(const std::vector<double>& v) {
  std::vector<double> out;
  for (double x : v)
    if (std::isfinite(x)) out.push_back(x);
  return out;
}

// Counts of null statistics at or above, and at or below, the observed one, turned into scipy's two-sided p. The
// tolerance keeps arrangements equal in exact arithmetic but not in the last bits on the observed one's side.
struct Tally {
  double observed = 0, tolerance = 0;
  std::int64_t at_least = 0, at_most = 0, total = 0;
  void add(double statistic) {
    at_least += statistic >= observed - tolerance;
    at_most += statistic <= observed + tolerance;
    ++total;
  }
  double two_sided(bool exact) const {
    const double extra = exact ? 0.0 : 1.0;
    const double greater = (static_cast<double>(at_least) + extra) / (static_cast<double>(total) + extra);
    const double less = (static_cast<double>(at_most) + extra) / (static_cast<double>(total) + extra);
    return std::min(1.0, 2.0 * std::min(greater, less));
  }
};

Tally tally_for(double observed) {
  return Tally{observed, std::abs(observed) * 100 * std::numeric_limits<double>::epsilon()};
}

Comparison undefined(bool paired, std::size_t n_a, std::size_t n_b) {
  Comparison c;
  c.paired = paired;
  c.n_a = n_a;
  c.n_b = n_b;
  c.difference = c.effect_size = c.p_value = kNaN;
  c.ci = {kNaN, kNaN};
  c.exact = false;
  return c;
}

double binomial(std::size_t n, std::size_t k) {
  double r = 1;
  for (std::size_t i = 1; i <= k; ++i) r = r * static_cast<double>(n - k + i) / static_cast<double>(i);
  return r;
}

}  // namespace

std::string Comparison::test() const {
  const std::string kind = paired ? "sign-flip" : "label permutation";
  return exact ? "exact " + kind : "Monte Carlo " + kind + " (" + std::to_string(rearrangements) + ")";
}

double t_quantile_975(double dof) {
  if (!(dof > 0) || !std::isfinite(dof)) return kNaN;
  return boost::math::quantile(boost::math::students_t_distribution<double>(dof), 0.975);
}

Comparison compare_paired(const std::vector<double>& a, const std::vector<double>& b, std::int64_t monte_carlo,
                          std::uint64_t seed) {
  if (a.size() != b.size()) throw std::invalid_argument("compare_paired: the two groups differ in length");
  std::vector<double> d;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (std::isfinite(a[i]) && std::isfinite(b[i])) d.push_back(b[i] - a[i]);
  if (d.size() < 2) return undefined(true, d.size(), d.size());
  Comparison c;
  c.paired = true;
  c.n_a = c.n_b = d.size();
  const double n = static_cast<double>(d.size());
  c.difference = mean_of(d);
  const double sd = std::sqrt(variance_of(d));
  const double half = t_quantile_975(n - 1) * sd / std::sqrt(n);
  c.ci = {c.difference - half, c.difference + half};
  c.effect_size = sd > 0 ? c.difference / sd : kNaN;
  // The statistic is the mean difference; swapping a pair's members flips its difference's sign.
  Tally tally = tally_for(c.difference);
  c.exact = d.size() <= kMaxExactPairs;
  if (c.exact) {
    const std::uint64_t arrangements = std::uint64_t{1} << d.size();
    for (std::uint64_t mask = 0; mask < arrangements; ++mask) {
      double sum = 0;
      for (std::size_t i = 0; i < d.size(); ++i) sum += (mask >> i & 1U) ? -d[i] : d[i];
      tally.add(sum / n);
    }
  } else {
    std::mt19937_64 rng(seed);
    for (std::int64_t r = 0; r < monte_carlo; ++r) {
      double sum = 0;
      for (double x : d) sum += (rng() & 1U) ? -x : x;
      tally.add(sum / n);
    }
  }
  c.rearrangements = tally.total;
  c.p_value = tally.two_sided(c.exact);
  return c;
}

Comparison compare_independent(const std::vector<double>& a_in, const std::vector<double>& b_in,
                               std::int64_t monte_carlo, std::uint64_t seed) {
  const std::vector<double> a = finite(a_in), b = finite(b_in);
  if (a.size() < 2 || b.size() < 2) return undefined(false, a.size(), b.size());
  Comparison c;
  c.n_a = a.size();
  c.n_b = b.size();
  const double na = static_cast<double>(a.size()), nb = static_cast<double>(b.size());
  c.difference = mean_of(b) - mean_of(a);
  const double va = variance_of(a), vb = variance_of(b);
  const double se2 = va / na + vb / nb;
  if (se2 > 0) {
    const double dof = se2 * se2 / ((va / na) * (va / na) / (na - 1) + (vb / nb) * (vb / nb) / (nb - 1));
    const double half = t_quantile_975(dof) * std::sqrt(se2);
    c.ci = {c.difference - half, c.difference + half};
  } else {
    c.ci = {c.difference, c.difference};
  }
  const double pooled = std::sqrt(((na - 1) * va + (nb - 1) * vb) / (na + nb - 2));
  c.effect_size = pooled > 0 ? c.difference / pooled : kNaN;

  std::vector<double> pooled_values = a;
  pooled_values.insert(pooled_values.end(), b.begin(), b.end());
  const double total = std::accumulate(pooled_values.begin(), pooled_values.end(), 0.0);
  const std::size_t n = pooled_values.size(), k = b.size();
  // mean(b') - mean(a') from the sum of the values labelled b alone.
  auto statistic = [&](double sum_b) { return sum_b / nb - (total - sum_b) / na; };
  Tally tally = tally_for(c.difference);
  c.exact = binomial(n, k) <= kMaxExactSplits;
  if (c.exact) {
    std::vector<std::size_t> pick(k);
    std::iota(pick.begin(), pick.end(), 0);
    while (true) {
      double sum = 0;
      for (std::size_t i : pick) sum += pooled_values[i];
      tally.add(statistic(sum));
      // The next k-subset in lexicographic order.
      std::size_t i = k;
      while (i > 0 && pick[i - 1] == n - k + i - 1) --i;
      if (i == 0) break;
      ++pick[i - 1];
      for (std::size_t j = i; j < k; ++j) pick[j] = pick[j - 1] + 1;
    }
  } else {
    std::mt19937_64 rng(seed);
    std::vector<double> shuffled = pooled_values;
    for (std::int64_t r = 0; r < monte_carlo; ++r) {
      std::shuffle(shuffled.begin(), shuffled.end(), rng);
      tally.add(statistic(std::accumulate(shuffled.begin(), shuffled.begin() + static_cast<std::ptrdiff_t>(k), 0.0)));
    }
  }
  c.rearrangements = tally.total;
  c.p_value = tally.two_sided(c.exact);
  return c;
}

std::vector<double> holm_adjust(const std::vector<double>& p) {
  std::vector<std::size_t> order;
  for (std::size_t i = 0; i < p.size(); ++i)
    if (std::isfinite(p[i])) order.push_back(i);
  std::stable_sort(order.begin(), order.end(), [&](std::size_t x, std::size_t y) { return p[x] < p[y]; });
  std::vector<double> out(p.size(), kNaN);
  const double m = static_cast<double>(order.size());
  double running = 0;
  for (std::size_t rank = 0; rank < order.size(); ++rank) {
    running = std::max(running, std::min(1.0, (m - static_cast<double>(rank)) * p[order[rank]]));
    out[order[rank]] = running;
  }
  return out;
}

}  // namespace loci::probe
