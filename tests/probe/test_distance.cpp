#include <catch2/catch.hpp>

#include <cmath>
#include <stdexcept>

#include "probe/distance.hpp"

using namespace loci::probe;

TEST_CASE("euclidean distances of a 3-4-5 triangle", "[probe][distance]") {
  Eigen::MatrixXd x(3, 2);
  x << 0, 0, 3, 4, 0, 4;
  const Eigen::MatrixXd d = pairwise_distance(x);
  CHECK(d(0, 1) == Approx(5));
  CHECK(d(0, 2) == Approx(4));
  CHECK(d(1, 2) == Approx(3));
  CHECK(d.isApprox(d.transpose()));
  CHECK(d.diagonal().isZero(0));
}

TEST_CASE("cosine distance - with NaN for a zero row", "[probe][distance]") {
  Eigen::MatrixXd x(4, 2);
  x << 1, 0, 0, 1, 2, 2, 0, 0;
  const Eigen::MatrixXd d = pairwise_distance(x, Metric::cosine);
  CHECK(d(0, 1) == Approx(1));
  CHECK(d(0, 2) == Approx(1 - 1 / std::sqrt(2.0)));
  CHECK(d(1, 2) == Approx(1 - 1 / std::sqrt(2.0)));
  CHECK(d(0, 0) == 0);
  CHECK(std::isnan(d(0, 3)));
  CHECK(std::isnan(d(3, 3)));
}

TEST_CASE("correlation distance ignores each row's offset and scale", "[probe][distance]") {
  Eigen::MatrixXd x(4, 3);
  x << 1, 2, 3,    //
      3, 2, 1,     //
      12, 14, 16,  //
      5, 5, 5;
  const Eigen::MatrixXd d = pairwise_distance(x, Metric::correlation);
  CHECK(d(0, 1) == Approx(2));
  CHECK(d(0, 2) == Approx(0).margin(1e-12));
  CHECK(std::isnan(d(0, 3)));  // a constant row has no correlation
}

TEST_CASE("upper triangle in scipy's squareform order", "[probe][distance]") {
  Eigen::MatrixXd m(4, 4);
  m << 0, 1, 2, 3,  //
      1, 0, 4, 5,   //
      2, 4, 0, 6,   //
      3, 5, 6, 0;
  Eigen::VectorXd expected(6);
  expected << 1, 2, 3, 4, 5, 6;
  CHECK(upper_triangle(m) == expected);
  CHECK(upper_triangle(Eigen::MatrixXd::Zero(1, 1)).size() == 0);
  CHECK_THROWS_AS(upper_triangle(Eigen::MatrixXd::Zero(2, 3)), std::invalid_argument);
}

TEST_CASE("metric names round-trip", "[probe][distance]") {
  for (Metric m : {Metric::euclidean, Metric::cosine, Metric::correlation}) CHECK(parse_metric(metric_name(m)) == m);
  CHECK_THROWS_AS(parse_metric("manhattan"), std::invalid_argument);
}
