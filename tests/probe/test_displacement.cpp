// The displacement account (probe/displacement.hpp): its norm ratio, and its draw-free prediction of a trained PE's
// RSA, which must hold where the draw is independent of what training wrote and fail where it is not.
#include <catch2/catch.hpp>

#include "probe/displacement.hpp"
#include "probe/rsa.hpp"
#include "tests/probe/helpers.hpp"

using namespace loci::probe;

namespace {

// A displacement that is the 6x6 grid's coordinates written into 32 dimensions, of norm `norm`.
Eigen::MatrixXd geometric_displacement(double norm) {
  const Eigen::MatrixXd coords = probe_test::grid(6, 6);
  const Eigen::MatrixXd centred = coords.rowwise() - coords.colwise().mean();
  Eigen::MatrixXd d = centred * probe_test::random_matrix(2, 32, 7);
  return d * (norm / d.norm());
}

}  // namespace

TEST_CASE("the displacement account: norm ratio, and a prediction that tracks the trained PE's RSA") {
  const Eigen::MatrixXd truth = pairwise_distance(probe_test::grid(6, 6));
  const Eigen::MatrixXd initial = probe_test::random_matrix(36, 32, 3);
  for (const double ratio : {0.3, 1.0, 3.0}) {
    const Eigen::MatrixXd trained = initial + geometric_displacement(ratio * initial.norm());
    const DisplacementAccount a = displacement_account(initial, trained, truth, Metric::euclidean, 11);
    CHECK(a.norm_ratio == Approx(ratio));
    // The displacement is (nearly) orthogonal to the draw: the draw is kept whole.
    CHECK(a.kept_draw == Approx(1.0).margin(0.1 * ratio));
    // The draw is independent of the displacement here, so the trained PE is one more sample of what is predicted.
    const double observed = rsa(trained, truth).spearman;
    INFO("ratio " << ratio << ": observed " << observed << ", predicted " << a.predicted_rsa << " +- "
                  << a.predicted_rsa_sd);
    CHECK(std::abs(observed - a.predicted_rsa) < 3 * a.predicted_rsa_sd + 0.02);
  }
  // The prediction rises with the displacement against the draw: a signal-to-noise curve.
  const auto predicted = [&](double ratio) {
    return displacement_account(initial, initial + geometric_displacement(ratio * initial.norm()), truth,
                                Metric::euclidean, 11)
        .predicted_rsa;
  };
  CHECK(predicted(0.1) < predicted(0.5));
  CHECK(predicted(0.5) < predicted(2.0));
  CHECK(predicted(2.0) > 0.8);
  // Deterministic in its seed.
  const Eigen::MatrixXd trained = initial + geometric_displacement(initial.norm());
  CHECK(displacement_account(initial, trained, truth, Metric::euclidean, 5).predicted_rsa ==
        displacement_account(initial, trained, truth, Metric::euclidean, 5).predicted_rsa);
}

TEST_CASE("the displacement account's prediction fails where the draw itself carries the geometry") {
  // A "draw" that already holds the grid: the trained PE mirrors it far more than its small displacement predicts.
  const Eigen::MatrixXd truth = pairwise_distance(probe_test::grid(6, 6));
  const Eigen::MatrixXd initial = geometric_displacement(10.0) + 0.1 * probe_test::random_matrix(36, 32, 3);
  const Eigen::MatrixXd trained = initial + 0.05 * probe_test::random_matrix(36, 32, 4);
  const DisplacementAccount a = displacement_account(initial, trained, truth, Metric::euclidean, 11);
  CHECK(rsa(trained, truth).spearman > 0.9);
  CHECK(a.predicted_rsa < 0.2);
  // Decay that halves the draw: the trained PE keeps half of it.
  CHECK(displacement_account(initial, 0.5 * initial, truth, Metric::euclidean, 1).kept_draw == Approx(0.5));
  CHECK_THROWS_AS(displacement_account(initial, trained.leftCols(5), truth, Metric::euclidean, 1),
                  std::invalid_argument);
}
