// How surprising an RSA is: a Mantel-style permutation test. The tokens' true positions are shuffled among them
// (rows and columns of the true distance matrix permuted together) and the RSA recomputed, so the null keeps the
// structure of both matrices and only breaks their pairing. One-sided: a PE that mirrors the truth has a large
// positive Spearman.
#pragma once

#include <Eigen/Core>

#include <cstdint>
#include <vector>

#include "probe/correlation.hpp"

namespace loci::probe {

struct MantelResult {
  double observed = 0;  // mean over the PEs of the Spearman between PE and true distances
  double p_value = 1;   // (1 + #{permutations with a mean Spearman >= observed}) / (1 + permutations)
  int permutations = 0;
  // The null distribution's mean and 95th percentile: observed - null_mean beside null_q95 - null_mean says how
  // large a change from a baseline must be to count (the regime map's onset, apps/analysis/onset.hpp).
  double null_mean = 0, null_q95 = 0;
};

// `pe_distances`: one T x T distance matrix per PE (a model's blocks), tested jointly: each permutation is applied
// to the truth once and scored against all of them, so the statistic is their mean Spearman. Deterministic for a
// seed. NaN observed (a constant PE) gives p = NaN. std::invalid_argument for mismatched shapes.
MantelResult mantel_test(const std::vector<Eigen::MatrixXd>& pe_distances, const Eigen::MatrixXd& true_distance,
                         int permutations = 1000, std::uint64_t seed = 0, double tie_tolerance = kDefaultTieTolerance);

}  // namespace loci::probe
