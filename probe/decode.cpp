#include "probe/decode.hpp"

#include <Eigen/Cholesky>
#include <Eigen/QR>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <random>
#include <stdexcept>
#include <string>

namespace loci::probe {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

Eigen::MatrixXd select_rows(const Eigen::MatrixXd& m, const std::vector<Eigen::Index>& rows) {
  Eigen::MatrixXd out(static_cast<Eigen::Index>(rows.size()), m.cols());
  for (std::size_t r = 0; r < rows.size(); ++r) out.row(static_cast<Eigen::Index>(r)) = m.row(rows[r]);
  return out;
}

// Predictions for x_test from a ridge fit on (x, y), intercept unpenalised (both sides centred on training means).
Eigen::MatrixXd ridge_predict(const Eigen::MatrixXd& x, const Eigen::MatrixXd& y, const Eigen::MatrixXd& x_test,
                              const DecodeOptions& options) {
  const Eigen::RowVectorXd x_mean = x.colwise().mean();
  const Eigen::RowVectorXd y_mean = y.colwise().mean();
  Eigen::MatrixXd xc = x.rowwise() - x_mean;
  Eigen::MatrixXd xt = x_test.rowwise() - x_mean;
  const Eigen::MatrixXd yc = y.rowwise() - y_mean;
  if (options.normalise) {
    const double rms = std::sqrt(xc.squaredNorm() / static_cast<double>(xc.rows()));
    if (rms > 0) {
      xc /= rms;
      xt /= rms;
    }
  }
  Eigen::MatrixXd fitted;
  if (options.alpha == 0) {
    fitted = xt * xc.completeOrthogonalDecomposition().solve(yc);
  } else if (xc.rows() <= xc.cols()) {
    // Fewer tokens than dims (the usual PE): solve in the n x n kernel space, w = X^T (X X^T + aI)^-1 y.
    Eigen::MatrixXd kernel = xc * xc.transpose();
    kernel.diagonal().array() += options.alpha;
    fitted = (xt * xc.transpose()) * kernel.llt().solve(yc);
  } else {
    Eigen::MatrixXd gram = xc.transpose() * xc;
    gram.diagonal().array() += options.alpha;
    fitted = xt * gram.llt().solve(xc.transpose() * yc);
  }
  return fitted.rowwise() + y_mean;
}

}  // namespace

std::vector<int> fold_assignment(Eigen::Index n, int folds, bool shuffle, std::uint64_t seed) {
  if (folds < 1) throw std::invalid_argument("fold_assignment: needs at least one fold");
  std::vector<Eigen::Index> order(static_cast<std::size_t>(n));
  std::iota(order.begin(), order.end(), Eigen::Index{0});
  if (shuffle) {
    std::mt19937_64 rng(seed);
    for (std::size_t i = order.size(); i > 1; --i) {
      // Modulo bias is below 2^-50 for any n a PE has; what matters is that every platform draws the same.
      const std::size_t j = static_cast<std::size_t>(rng() % i);
      std::swap(order[i - 1], order[j]);
    }
  }
  std::vector<int> fold(static_cast<std::size_t>(n));
  for (std::size_t p = 0; p < order.size(); ++p)
    fold[static_cast<std::size_t>(order[p])] = static_cast<int>(p % static_cast<std::size_t>(folds));
  return fold;
}

Decode decode(const Eigen::MatrixXd& pe, const Eigen::MatrixXd& coords, const DecodeOptions& options) {
  const Eigen::Index n = pe.rows();
  if (coords.rows() != n)
    throw std::invalid_argument("decode: PE has " + std::to_string(n) + " rows but coordinates have " +
                                std::to_string(coords.rows()));
  if (n < 2) throw std::invalid_argument("decode: needs at least 2 tokens");
  if (!(options.alpha >= 0)) throw std::invalid_argument("decode: alpha must be >= 0");
  const int tokens = static_cast<int>(std::min<Eigen::Index>(n, std::numeric_limits<int>::max()));
  const int k = options.leave_one_out ? tokens : std::clamp(options.folds, 2, tokens);
  const std::vector<int> fold = fold_assignment(n, k, options.shuffle && !options.leave_one_out, options.seed);

  Decode out;
  out.predicted = Eigen::MatrixXd::Zero(n, coords.cols());
  for (int f = 0; f < k; ++f) {
    std::vector<Eigen::Index> train, test;
    for (Eigen::Index i = 0; i < n; ++i) (fold[static_cast<std::size_t>(i)] == f ? test : train).push_back(i);
    if (test.empty()) continue;
    const Eigen::MatrixXd pred =
        ridge_predict(select_rows(pe, train), select_rows(coords, train), select_rows(pe, test), options);
    for (std::size_t r = 0; r < test.size(); ++r) out.predicted.row(test[r]) = pred.row(static_cast<Eigen::Index>(r));
  }

  const Eigen::RowVectorXd mean = coords.colwise().mean();
  const Eigen::RowVectorXd ss_res = (coords - out.predicted).colwise().squaredNorm();
  const Eigen::RowVectorXd ss_tot = (coords.rowwise() - mean).colwise().squaredNorm();
  out.r2_per_dim.resize(coords.cols());
  double sum = 0, res_total = 0, tot_total = 0;
  int counted = 0;
  for (Eigen::Index j = 0; j < coords.cols(); ++j) {
    if (ss_tot(j) > 0) {
      out.r2_per_dim(j) = 1.0 - ss_res(j) / ss_tot(j);
      sum += out.r2_per_dim(j);
      res_total += ss_res(j);
      tot_total += ss_tot(j);
      ++counted;
    } else {
      out.r2_per_dim(j) = kNaN;
    }
  }
  out.r2 = counted > 0 ? sum / counted : kNaN;
  out.r2_pooled = tot_total > 0 ? 1.0 - res_total / tot_total : kNaN;
  return out;
}

}  // namespace loci::probe
