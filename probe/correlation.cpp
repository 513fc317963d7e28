#include "probe/correlation.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <stdexcept>
#include <string>
#include <vector>

namespace loci::probe {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

void check_lengths(const Eigen::VectorXd& a, const Eigen::VectorXd& b, const char* what) {
  if (a.size() != b.size())
    throw std::invalid_argument(std::string(what) + ": vectors of length " + std::to_string(a.size()) + " and " +
                                std::to_string(b.size()));
}

}  // namespace

Eigen::VectorXd average_ranks(const Eigen::VectorXd& v, double tie_tolerance) {
  const Eigen::Index n = v.size();
  double largest = 0;
  for (Eigen::Index i = 0; i < n; ++i)
    if (std::isfinite(v(i))) largest = std::max(largest, std::abs(v(i)));
  const double tol = tie_tolerance * largest;
  std::vector<Eigen::Index> order(static_cast<std::size_t>(n));
  std::iota(order.begin(), order.end(), Eigen::Index{0});
  // NaNs go last so they never split a run of equal values.
  std::stable_sort(order.begin(), order.end(), [&](Eigen::Index i, Eigen::Index j) {
    if (std::isnan(v(i))) return false;
    if (std::isnan(v(j))) return true;
    return v(i) < v(j);
  });
  Eigen::VectorXd ranks(n);
  Eigen::Index start = 0;
  while (start < n) {
    const double value = v(order[static_cast<std::size_t>(start)]);
    Eigen::Index end = start + 1;
    // Measured from the run's first value, so a chain of small steps cannot merge a wide range into one tie.
    while (end < n && v(order[static_cast<std::size_t>(end)]) - value <= tol) ++end;
    // Positions start..end-1 hold equal values: ranks start+1..end, whose mean is (start + 1 + end) / 2.
    const double rank = std::isnan(value) ? kNaN : 0.5 * static_cast<double>(start + 1 + end);
    for (Eigen::Index p = start; p < end; ++p) ranks(order[static_cast<std::size_t>(p)]) = rank;
    start = end;
  }
  return ranks;
}

double pearson(const Eigen::VectorXd& a, const Eigen::VectorXd& b) {
  check_lengths(a, b, "pearson");
  if (a.size() < 2 || a.hasNaN() || b.hasNaN()) return kNaN;
  const Eigen::VectorXd ca = a.array() - a.mean();
  const Eigen::VectorXd cb = b.array() - b.mean();
  const double denom = ca.norm() * cb.norm();
  if (!(denom > 0)) return kNaN;
  // Rounding can carry |r| a hair past 1 for perfectly related vectors.
  return std::clamp(ca.dot(cb) / denom, -1.0, 1.0);
}

double spearman(const Eigen::VectorXd& a, const Eigen::VectorXd& b, double tie_tolerance) {
  check_lengths(a, b, "spearman");
  if (a.hasNaN() || b.hasNaN()) return kNaN;
  return pearson(average_ranks(a, tie_tolerance), average_ranks(b, tie_tolerance));
}

}  // namespace loci::probe
