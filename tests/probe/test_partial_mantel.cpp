// RSA that sees through the task's structure (probe/partial_mantel.hpp): without the readout token, and with the
// ranks of pair covariates regressed out; the partial statistic checked against numpy/scipy on the same matrices.
#include <catch2/catch.hpp>

#include <cmath>

#include "probe/distance.hpp"
#include "probe/partial_mantel.hpp"
#include "probe/permutation.hpp"

using namespace loci::probe;

namespace {

Eigen::MatrixXd grid_positions() {
  Eigen::MatrixXd p(16, 2);
  for (int i = 0; i < 16; ++i) p(i, 0) = i / 4, p(i, 1) = i % 4;
  return p;
}

Eigen::MatrixXd noisy_grid_pe(double amount) {
  Eigen::MatrixXd pe = Eigen::MatrixXd::Zero(16, 4);
  pe.leftCols(2) = grid_positions();
  for (int i = 0; i < 16; ++i)
    for (int j = 0; j < 4; ++j) pe(i, j) += amount * std::sin(1.7 * i + 0.9 * j + 0.3 * i * j);
  return pe;
}

}  // namespace

TEST_CASE("the partial Mantel statistic is the residual ranks' correlation, as numpy computes it", "[partial_mantel]") {
  const Eigen::MatrixXd truth = pairwise_distance(grid_positions(), Metric::euclidean);
  const Eigen::MatrixXd pe = pairwise_distance(noisy_grid_pe(0.8), Metric::euclidean);
  const auto covariates = pair_covariates(truth.col(15));  // distance to the readout token, summed and differenced
  const PartialMantelResult r = partial_mantel_test({pe}, truth, covariates, 200, 0);
  // numpy: rankdata of each upper triangle rounded to 1e-9 (values equal in exact arithmetic, such as sums of
  // square roots, tie as loci ties them), lstsq on [1, ranks of both covariates], corrcoef of the residuals.
  CHECK(r.observed == Approx(0.6692870859632003).epsilon(1e-9));
  CHECK(r.covariates == 2);
  CHECK(r.p_value < 0.01);
}

TEST_CASE("a PE that mirrors only its distance to the readout token has RSA but no partial correlation",
          "[partial_mantel]") {
  const Eigen::MatrixXd truth = pairwise_distance(grid_positions(), Metric::euclidean);
  // Each token's PE is its true distance to the readout token (index 15), nothing of the grid besides.
  const Eigen::MatrixXd readout_only = pairwise_distance(Eigen::MatrixXd(truth.col(15)), Metric::euclidean);
  const MantelResult plain = mantel_test({readout_only}, truth, 200, 0);
  CHECK(plain.observed > 0.1);
  const PartialMantelResult partial =
      partial_mantel_test({readout_only}, truth, pair_covariates(truth.col(15)), 200, 0);
  CHECK(std::isnan(partial.observed));  // its distances are one of the covariates: nothing is left once they go

  // A grid PE keeps its full correlation once the readout's structure is taken out.
  const Eigen::MatrixXd grid = pairwise_distance(noisy_grid_pe(0.0), Metric::euclidean);
  CHECK(partial_mantel_test({grid}, truth, pair_covariates(truth.col(15)), 200, 0).observed == Approx(1.0));
}

TEST_CASE("without_tokens drops a token's row and column", "[partial_mantel]") {
  Eigen::MatrixXd m(3, 3);
  m << 0, 1, 2, 1, 0, 3, 2, 3, 0;
  const Eigen::MatrixXd r = without_tokens(m, {1});
  REQUIRE(r.rows() == 2);
  CHECK(r(0, 1) == 2);
  CHECK(without_tokens(m, {7}).rows() == 3);
  CHECK_THROWS_AS(partial_mantel_test({m}, Eigen::MatrixXd::Zero(4, 4), {}), std::invalid_argument);
}
