// Rank and linear correlation of two equally long vectors, the statistics behind RSA.
#pragma once

#include <Eigen/Core>

namespace loci::probe {

// Values closer than this fraction of the largest magnitude in a vector count as tied. Distances that are equal
// in exact arithmetic (a grid's many pairs at distance 1) come out of a rotated PE differing in the last bits, and
// ranking that noise would cost a perfect PE its perfect score. 1e-9 is far above rounding and far below any
// difference a learned PE means.
inline constexpr double kDefaultTieTolerance = 1e-9;

// 1-based ranks; tied values share the mean of the ranks they span, so {5, 1, 5} -> {2.5, 1, 2.5}. A run of
// sorted values within tie_tolerance * max|v| of its first value is one tie; 0 ties only exact equals (scipy).
// NaN entries are ranked as NaN.
Eigen::VectorXd average_ranks(const Eigen::VectorXd& v, double tie_tolerance = kDefaultTieTolerance);

// Pearson's r. Throws std::invalid_argument when the lengths differ; NaN when either vector is constant (zero
// variance), holds a NaN, or has fewer than 2 entries.
double pearson(const Eigen::VectorXd& a, const Eigen::VectorXd& b);

// Spearman's rho: Pearson's r between average ranks, the definition that stays correct under ties (and agrees with
// scipy.stats.spearmanr up to the tie tolerance). Same NaN and error rules as pearson.
double spearman(const Eigen::VectorXd& a, const Eigen::VectorXd& b, double tie_tolerance = kDefaultTieTolerance);

}  // namespace loci::probe
