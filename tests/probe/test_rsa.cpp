#include <catch2/catch.hpp>

#include <cmath>
#include <stdexcept>

#include "probe/correlation.hpp"
#include "probe/rsa.hpp"
#include "tests/probe/helpers.hpp"

using namespace loci::probe;

namespace {
Eigen::VectorXd vec(std::initializer_list<double> v) {
  Eigen::VectorXd out(static_cast<Eigen::Index>(v.size()));
  Eigen::Index i = 0;
  for (double x : v) out(i++) = x;
  return out;
}
}  // namespace

TEST_CASE("average ranks share tied positions", "[probe][rsa]") {
  CHECK(average_ranks(vec({5, 1, 5})) == vec({2.5, 1, 2.5}));
  CHECK(average_ranks(vec({3, 3, 3})) == vec({2, 2, 2}));
  CHECK(average_ranks(vec({0.3, -2, 7, 0.3, 0.3})) == vec({3, 1, 5, 3, 3}));
}

TEST_CASE("pearson by hand", "[probe][rsa]") {
  // a - mean = (-1, 0, 1), b - mean = (-4/3, -1/3, 5/3): r = 3 / (sqrt 2 * sqrt(42) / 3) = 9 / sqrt 84.
  CHECK(pearson(vec({1, 2, 3}), vec({1, 2, 4})) == Approx(9 / std::sqrt(84.0)));
  CHECK(pearson(vec({1, 2, 3}), vec({3, 2, 1})) == Approx(-1));
  CHECK(std::isnan(pearson(vec({1, 1, 1}), vec({1, 2, 3}))));
  CHECK_THROWS_AS(pearson(vec({1, 2}), vec({1, 2, 3})), std::invalid_argument);
}

TEST_CASE("spearman with ties matches the hand value", "[probe][rsa]") {
  // ranks (1, 2.5, 2.5, 4) and (1, 3, 2, 4), centred (-1.5, 0, 0, 1.5) and (-1.5, .5, -.5, 1.5):
  // rho = 4.5 / sqrt(4.5 * 5) = 3 / sqrt 10.
  CHECK(spearman(vec({1, 2, 2, 3}), vec({1, 3, 2, 4})) == Approx(3 / std::sqrt(10.0)));
  // Any increasing relation is a perfect rank correlation.
  CHECK(spearman(vec({10, 20, 30}), vec({1, 100, 1000})) == Approx(1));
}

TEST_CASE("RSA of a PE that is an isometric copy of the coordinates is 1", "[probe][rsa]") {
  const Eigen::MatrixXd coords = probe_test::grid();
  const Eigen::MatrixXd pe = 3.0 * coords * probe_test::isometric_embedding(2, 160, 7);
  const Rsa r = rsa_to_coordinates(pe, coords);
  CHECK(r.spearman == Approx(1));
  CHECK(r.pearson == Approx(1));
}

TEST_CASE("a monotone transform of the true distance leaves Spearman unchanged", "[probe][rsa]") {
  const Eigen::MatrixXd coords = probe_test::grid();
  const Eigen::MatrixXd pe =
      probe_test::random_matrix(16, 160, 3) * 0.2 + coords * probe_test::isometric_embedding(2, 160, 5);
  const Eigen::MatrixXd truth = pairwise_distance(coords);
  const Rsa base = rsa(pe, truth);
  const Eigen::MatrixXd squared = truth.array().square();
  const Eigen::MatrixXd saturating = (1.0 - (-truth.array()).exp()).matrix();
  const Eigen::MatrixXd logged = truth.array().log1p();
  for (const Eigen::MatrixXd* t : {&squared, &saturating, &logged}) {
    const Rsa moved = rsa(pe, *t);
    CHECK(moved.spearman == Approx(base.spearman).epsilon(1e-12));
    CHECK(moved.pearson != Approx(base.pearson).epsilon(1e-6));  // the linear reading does change
  }
  // And on the PE side: squaring PE distances is monotone too.
  const Eigen::MatrixXd pe_sq = pairwise_distance(pe).array().square();
  CHECK(rsa_of_distances(pe_sq, truth).spearman == Approx(base.spearman).epsilon(1e-12));
  CHECK(base.spearman > 0.5);
}

TEST_CASE("RSA against a given matrix such as graph hops", "[probe][rsa]") {
  // A path of 16 nodes: hops |i - j|. A PE placing them in order on an arc of 1.5 rad has chord 2 sin(0.05 |i - j|),
  // increasing in the hops but not linearly: perfect in rank only. Equal chords differ in their last bits, which the
  // tie tolerance absorbs.
  Eigen::MatrixXd hops(16, 16), pe(16, 2);
  for (int i = 0; i < 16; ++i) {
    for (int j = 0; j < 16; ++j) hops(i, j) = std::abs(i - j);
    pe.row(i) << std::cos(0.1 * i), std::sin(0.1 * i);
  }
  CHECK(rsa(pe, hops).spearman == Approx(1));
  CHECK(rsa(pe, hops).pearson < 1 - 1e-6);
  CHECK_THROWS_AS(rsa(pe, Eigen::MatrixXd::Zero(4, 4)), std::invalid_argument);
}

TEST_CASE("RSA with the cosine metric", "[probe][rsa]") {
  // Rows at angles 0, 30, 90 degrees with arbitrary lengths: cosine distance follows the angle, not the length.
  Eigen::MatrixXd pe(3, 2);
  pe << 5, 0, std::cos(M_PI / 6), std::sin(M_PI / 6), 0, 0.1;
  Eigen::MatrixXd angle(3, 3);
  angle << 0, 30, 90, 30, 0, 60, 90, 60, 0;
  CHECK(rsa(pe, angle, RsaOptions{Metric::cosine}).spearman == Approx(1));
}
