// Comparing two groups of runs (a sigma against another, a PE against another): the difference of their means with
// a 95% interval, a standardised effect size, and a permutation test chosen by the design. Runs that share a PE
// draw or a dataset are paired and compared by their differences (sign-flip test); runs that share nothing are
// compared as two independent samples (label permutation). Both tests are exact when every rearrangement can be
// listed (2^pairs up to 2^20; C(n, k) up to 200,000) and Monte Carlo above, and follow scipy.stats.permutation_test's
// conventions (two-sided p = min(1, 2 x the smaller one-sided p); a Monte Carlo p counts the observed arrangement),
// so that scipy on the same numbers gives the same p.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "probe/bootstrap.hpp"

namespace loci::probe {

struct Comparison {
  bool paired = false;
  std::size_t n_a = 0, n_b = 0;  // finite values used (paired: both n are the number of complete pairs)
  double difference = 0;         // mean(b) - mean(a); paired: the mean of the differences b_i - a_i
  Interval ci{0, 0};             // 95% Student t interval of `difference` (Welch's when independent)
  double effect_size = 0;        // paired: d_z = mean / sd of the differences; independent: Cohen's d (pooled sd)
  double p_value = 1;            // two-sided permutation p
  bool exact = true;             // every rearrangement counted (false: Monte Carlo)
  std::int64_t rearrangements = 0;
  std::string test() const;  // "exact sign-flip", "Monte Carlo label permutation (20000)", ...
};

// a[i] and b[i] are one pair (same draw or dataset); pairs with a NaN are left out. Fewer than 2 pairs give NaN
// everywhere but n. Throws std::invalid_argument when the lengths differ.
Comparison compare_paired(const std::vector<double>& a, const std::vector<double>& b, std::int64_t monte_carlo = 20000,
                          std::uint64_t seed = 0);

// NaN entries are dropped; fewer than 2 values on either side give NaN everywhere but n.
Comparison compare_independent(const std::vector<double>& a, const std::vector<double>& b,
                               std::int64_t monte_carlo = 20000, std::uint64_t seed = 0);

// Holm's step-down adjustment of a family of p-values, in their given order; NaN p-values stay NaN and do not count
// in the family's size.
std::vector<double> holm_adjust(const std::vector<double>& p);

// The two-sided 95% quantile of Student's t with `dof` degrees of freedom (any real dof > 0).
double t_quantile_975(double dof);

}  // namespace loci::probe
