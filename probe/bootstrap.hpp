// Confidence intervals over seeds: the percentile bootstrap of a mean, so that a summary's mean +- sd over a few
// seeds comes with the range the mean could plausibly take.
#pragma once

#include <cstdint>
#include <vector>

namespace loci::probe {

struct Interval {
  double low = 0, high = 0;
};

// The `level` (e.g. 0.95) percentile interval of the mean of `xs` over `resamples` resamples drawn with
// replacement. NaN entries are dropped first; fewer than 2 values give NaN bounds. Deterministic for a seed.
Interval bootstrap_mean_ci(const std::vector<double>& xs, int resamples = 2000, double level = 0.95,
                           std::uint64_t seed = 0);

}  // namespace loci::probe
