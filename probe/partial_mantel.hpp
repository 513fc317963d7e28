// RSA that sees through the task's structure. In the LST the readout token (the last) is also a grid corner, and
// the cells are targets unequally often: a PE can mirror either without mirroring the grid, and plain RSA counts it
// as geometry (moving only the readout row of a random PE gives RSA 0.08-0.12). Two answers: RSA on the tokens
// the head does not read, and a partial Mantel test, the Spearman between PE and true distances once the ranks of
// pair covariates (distance to the readout token, target frequency) are regressed out of both.
#pragma once

#include <Eigen/Core>

#include <cstdint>
#include <vector>

#include "probe/permutation.hpp"

namespace loci::probe {

// m without the rows and columns of `tokens` (indices into m; duplicates and out-of-range ones ignored).
Eigen::MatrixXd without_tokens(const Eigen::MatrixXd& m, const std::vector<Eigen::Index>& tokens);

// Pair covariates from a per-token quantity q: the matrices q_i + q_j and |q_i - q_j|.
std::vector<Eigen::MatrixXd> pair_covariates(const Eigen::VectorXd& q);

struct PartialMantelResult {
  double observed = 0;  // mean over the PEs of the partial Spearman (residual ranks' Pearson)
  double p_value = 1;   // (1 + #{permutations >= observed}) / (1 + permutations), one-sided
  int permutations = 0;
  int covariates = 0;  // those with any spread (constant ones carry nothing and are left out)
};

// The covariates stay fixed while the truth's tokens are permuted (rows and columns together), as in mantel_test.
// NaN observed and p where a residual is constant (a PE that is a function of the covariates alone).
// std::invalid_argument for mismatched shapes.
PartialMantelResult partial_mantel_test(const std::vector<Eigen::MatrixXd>& pe_distances,
                                        const Eigen::MatrixXd& true_distance,
                                        const std::vector<Eigen::MatrixXd>& covariates, int permutations = 1000,
                                        std::uint64_t seed = 0, double tie_tolerance = kDefaultTieTolerance);

}  // namespace loci::probe
