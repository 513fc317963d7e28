#include "probe/bootstrap.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>

namespace loci::probe {

Interval bootstrap_mean_ci(const std::vector<double>& xs, int resamples, double level, std::uint64_t seed) {
  std::vector<double> v;
  for (double x : xs)
    if (!std::isnan(x)) v.push_back(x);
  constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
  if (v.size() < 2 || resamples < 1) return {kNaN, kNaN};
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<std::size_t> pick(0, v.size() - 1);
  std::vector<double> means(static_cast<std::size_t>(resamples));
  for (auto& m : means) {
    double sum = 0;
    for (std::size_t i = 0; i < v.size(); ++i) sum += v[pick(rng)];
    m = sum / static_cast<double>(v.size());
  }
  std::sort(means.begin(), means.end());
  // Nearest-rank percentiles: the interval holds `level` of the resampled means.
  const double tail = (1.0 - level) / 2.0;
  auto at = [&](double q) {
    const auto k = static_cast<std::size_t>(
        std::clamp(std::ceil(q * static_cast<double>(means.size())) - 1.0, 0.0, static_cast<double>(means.size() - 1)));
    return means[k];
  };
  return {at(tail), at(1.0 - tail)};
}

}  // namespace loci::probe
