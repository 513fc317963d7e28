// Linear decodability: can a ridge regression read each token's true coordinates off its PE row, on tokens it was
// not fitted on? Cross-validated so that a PE with more dims than tokens cannot score by memorising.
#pragma once

#include <Eigen/Core>

#include <cstdint>
#include <vector>

namespace loci::probe {

struct DecodeOptions {
  // Ridge penalty on the weights (never on the intercept). 0 gives the minimum-norm least-squares fit.
  double alpha = 1.0;
  // k of k-fold cross-validation, at least 2 and at most T (more folds than tokens means leave-one-out).
  int folds = 5;
  // One fold per token; the choice for the paper's 16-token PEs, where 5 folds leave 12 training tokens.
  bool leave_one_out = false;
  // Tokens are dealt to folds after a shuffle drawn from this seed; without it token i goes to fold i % k, which
  // on a row-major grid holds out whole columns and measures extrapolation instead.
  bool shuffle = true;
  std::uint64_t seed = 0;
  // Divide the training features (after centring) by their root-mean-square row norm, so alpha is relative to the
  // PE's size: a PE scaled by any c > 0 decodes identically. Without it a fixed alpha crushes small-norm PEs, which
  // is exactly the axis (init sigma) the analyses compare along.
  bool normalise = true;
};

struct Decode {
  // Per coordinate dimension j: 1 - sum_i (y_ij - yhat_ij)^2 / sum_i (y_ij - mean_j)^2 over all T tokens, yhat the
  // out-of-fold predictions (sklearn's r2_score of cross_val_predict). NaN for a dimension with no variance.
  Eigen::VectorXd r2_per_dim;
  // Mean of r2_per_dim over the dimensions that have variance (sklearn's "uniform_average"); the reported R^2.
  double r2 = 0;
  // 1 - (total squared error) / (total variance) pooled over dimensions (sklearn's "variance_weighted"): the
  // dimensions that spread the tokens more weigh more. Equal to r2 when every axis has the same spread.
  double r2_pooled = 0;
  // Out-of-fold predictions, T x k.
  Eigen::MatrixXd predicted;
};

// pe is T x d, coords T x k. Throws std::invalid_argument when row counts differ, T < 2, or alpha < 0.
Decode decode(const Eigen::MatrixXd& pe, const Eigen::MatrixXd& coords, const DecodeOptions& options = {});

// Fold index (0..k-1) of each of n tokens; fold sizes differ by at most one. Deterministic in (n, k, shuffle, seed)
// on every platform (own Fisher-Yates on std::mt19937_64, not std::shuffle, whose draws are unspecified). Throws
// std::invalid_argument for folds < 1.
std::vector<int> fold_assignment(Eigen::Index n, int folds, bool shuffle, std::uint64_t seed);

}  // namespace loci::probe
