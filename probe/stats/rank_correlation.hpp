// A correlation across runs (a statistic of each run against its accuracy), with what a reader needs to weigh it:
// a permutation p-value (exact up to 8 runs, Monte Carlo above) and a percentile bootstrap interval over runs.
// Computed over runs, never over group means: six group means give a rho whose 5% critical value is 0.886.
#pragma once

#include <cstdint>
#include <vector>

#include "probe/bootstrap.hpp"

namespace loci::probe {

struct RankCorrelation {
  double rho = 0;       // Spearman
  std::size_t n = 0;    // runs where both are finite
  double p_value = 1;   // two-sided, permuting y against x (scipy.stats.permutation_test, permutation_type pairings)
  bool exact = true;
  Interval ci{0, 0};    // 95% percentile bootstrap over runs
};

// Pairs with a NaN are left out; fewer than 3 pairs give NaN rho, p and interval. Deterministic for a seed.
RankCorrelation spearman_test(const std::vector<double>& x, const std::vector<double>& y,
                              std::int64_t monte_carlo = 10000, int resamples = 2000, std::uint64_t seed = 0);

}  // namespace loci::probe
