// A correlation across runs (a statistic of each run against its accuracy, or a metric against a swept sigma), with
// what a reader needs to weigh it: a permutation p-value (exact up to 8 runs, Monte Carlo above) and a percentile
// bootstrap interval over runs. Computed over runs, never over group means: six group means give a rho whose 5%
// critical value is 0.886. Where runs share something (a PE draw, a dataset), they form strata and the test is a
// blocked one: rho is the mean of the within-stratum rhos weighted by size (Page's test, read as a correlation), y
// moves only within its stratum and the bootstrap resamples whole strata.
#pragma once

#include <cstdint>
#include <vector>

#include "probe/bootstrap.hpp"

namespace loci::probe {

struct RankCorrelation {
  double rho = 0;      // Spearman; with strata, the size-weighted mean of the within-stratum rhos
  std::size_t n = 0;   // runs where both are finite
  double p_value = 1;  // two-sided, permuting y against x (scipy.stats.permutation_test, permutation_type pairings)
  bool exact = true;
  Interval ci{0, 0};       // 95% percentile bootstrap over runs (over strata where there are strata)
  std::size_t strata = 0;  // 0: every run exchangeable; else how many strata (those with one x or y carry none)
};

// Pairs with a NaN are left out; fewer than 3 pairs give NaN rho, p and interval. Deterministic for a seed.
// `strata`: empty, or one label per pair (pairs with one label share a draw or a dataset); with labels the test is
// always Monte Carlo, and NaN where no stratum ranks both x and y. Throws std::invalid_argument when strata has
// another length.
RankCorrelation spearman_test(const std::vector<double>& x, const std::vector<double>& y,
                              std::int64_t monte_carlo = 10000, int resamples = 2000, std::uint64_t seed = 0,
                              const std::vector<std::size_t>& strata = {});

}  // namespace loci::probe
