#include <catch2/catch.hpp>

#include <cmath>
#include <stdexcept>

#include "probe/distance.hpp"
#include "probe/mds.hpp"
#include "probe/neighbours.hpp"
#include "probe/procrustes.hpp"
#include "tests/probe/helpers.hpp"

using namespace loci::probe;

using probe_test::column;

TEST_CASE("k-NN overlap is 1 for the same configuration - however rotated or scaled", "[probe][knn]") {
  const Eigen::MatrixXd coords = probe_test::grid();
  const Eigen::MatrixXd truth = pairwise_distance(coords);
  CHECK(knn_overlap(truth, truth) == 1);
  const Eigen::MatrixXd pe = 0.01 * coords * probe_test::isometric_embedding(2, 160, 91);
  for (int k : {1, 3, 4, 8, 15, 40})
    CHECK(knn_overlap(pairwise_distance(pe), truth, KnnOptions{k, false}) == Approx(1));
}

TEST_CASE("k-NN overlap on a line by hand", "[probe][knn]") {
  // True positions 0,1,2,3; the PE swaps the last two (0,1,3,2). With k = 1 and the lower index winning ties:
  // true neighbours 0->1, 1->0, 2->1, 3->2; PE neighbours 0->1, 1->0, 2->3, 3->1: two of four agree.
  const Eigen::MatrixXd truth = pairwise_distance(column({0, 1, 2, 3}));
  const Eigen::MatrixXd pe = pairwise_distance(column({0, 1, 3, 2}));
  CHECK(knn_overlap(pe, truth, KnnOptions{1, false}) == Approx(0.5));
  // Counting every true neighbour tied at the first distance: token 1 may pick 0 or 2, token 2 may pick 1 or 3,
  // so token 2's choice of 3 now counts: three of four.
  CHECK(knn_overlap(pe, truth, KnnOptions{1, true}) == Approx(0.75));
  const auto nn = nearest_neighbours(truth, 2);
  CHECK(nn[1] == std::vector<Eigen::Index>{0, 2});
  CHECK(nn[0] == std::vector<Eigen::Index>{1, 2});
}

TEST_CASE("k-NN overlap refuses mismatched matrices", "[probe][knn]") {
  CHECK_THROWS_AS(knn_overlap(Eigen::MatrixXd::Zero(3, 3), Eigen::MatrixXd::Zero(4, 4)), std::invalid_argument);
  CHECK(std::isnan(knn_overlap(Eigen::MatrixXd::Zero(1, 1), Eigen::MatrixXd::Zero(1, 1))));
}

TEST_CASE("MDS recovers a 4x4 grid's distances exactly", "[probe][mds]") {
  const Eigen::MatrixXd coords = probe_test::grid();
  const Eigen::MatrixXd pe = 2.0 * coords * probe_test::isometric_embedding(2, 160, 101);
  const Mds m = classical_mds(pairwise_distance(pe), 2);
  REQUIRE(m.embedding.rows() == 16);
  REQUIRE(m.embedding.cols() == 2);
  CHECK((pairwise_distance(m.embedding) - pairwise_distance(pe)).cwiseAbs().maxCoeff() < 1e-9);
  // Each axis of the centred grid carries 4 * (1.5^2 + 0.5^2 + 0.5^2 + 1.5^2) = 20, times 2^2 for the scale.
  CHECK(m.eigenvalues(0) == Approx(80));
  CHECK(m.eigenvalues(1) == Approx(80));
  CHECK(m.eigenvalues(2) == Approx(0).margin(1e-9));
  CHECK(m.explained == Approx(1));
  CHECK(procrustes_disparity(m.embedding, coords) == Approx(0).margin(1e-12));
  // The embedding is centred.
  CHECK(m.embedding.colwise().sum().norm() == Approx(0).margin(1e-9));
}

TEST_CASE("MDS signs are fixed: the largest entry of each axis is positive", "[probe][mds]") {
  // Points 0, 1, 3 centre to -4/3, -1/3, 5/3; mirrored input must draw the same way round.
  const Mds a = classical_mds(pairwise_distance(column({0, 1, 3})), 1);
  const Mds b = classical_mds(pairwise_distance(column({0, -1, -3})), 1);
  CHECK(a.embedding(0, 0) == Approx(-4.0 / 3));
  CHECK(a.embedding(1, 0) == Approx(-1.0 / 3));
  CHECK(a.embedding(2, 0) == Approx(5.0 / 3));
  CHECK(a.embedding.isApprox(b.embedding));
}

TEST_CASE("MDS of a cube in 3 dims - and more dims than the data have", "[probe][mds]") {
  Eigen::MatrixXd cube(8, 3);
  for (int t = 0; t < 8; ++t) cube.row(t) << (t & 1), (t >> 1 & 1), (t >> 2 & 1);
  const Mds m3 = classical_mds(pairwise_distance(cube), 3);
  CHECK((pairwise_distance(m3.embedding) - pairwise_distance(cube)).cwiseAbs().maxCoeff() < 1e-9);
  const Mds m2 = classical_mds(pairwise_distance(cube), 2);
  CHECK(m2.explained == Approx(2.0 / 3));
  const Mds m10 = classical_mds(pairwise_distance(cube), 10);
  CHECK(m10.embedding.cols() == 10);
  CHECK(m10.embedding.rightCols(7).isZero(1e-9));
  CHECK_THROWS_AS(classical_mds(pairwise_distance(cube), 0), std::invalid_argument);
}
