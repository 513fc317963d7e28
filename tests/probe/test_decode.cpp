#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "probe/decode.hpp"
#include "tests/probe/helpers.hpp"

using namespace loci::probe;

using probe_test::column;

namespace {

// x = 0..3 and y = (0, 1, 2, 4): four points worked by hand and by numpy.
Eigen::MatrixXd four_x() { return column({0, 1, 2, 3}); }
Eigen::MatrixXd four_y() { return column({0, 1, 2, 4}); }

DecodeOptions leave_one_out(double alpha) {
  DecodeOptions o;
  o.alpha = alpha;
  o.leave_one_out = true;
  return o;
}

}  // namespace

TEST_CASE("leave-one-out least squares on four points by hand", "[probe][decode]") {
  // x = 0..3, y = (0, 1, 2, 4). Leaving out x = 0, the line through (1,1), (2,2), (3,4) has slope 3/2 and passes
  // through (2, 7/3), so it predicts -2/3 there; likewise 8/7, 18/7, 3 for the others.
  const Decode d = decode(four_x(), four_y(), leave_one_out(0));
  CHECK(d.predicted(0, 0) == Approx(-2.0 / 3));
  CHECK(d.predicted(1, 0) == Approx(8.0 / 7));
  CHECK(d.predicted(2, 0) == Approx(18.0 / 7));
  CHECK(d.predicted(3, 0) == Approx(3));
  CHECK(d.r2 == Approx(0.7952704891480402));
  CHECK(d.r2_pooled == Approx(d.r2));
}

TEST_CASE("ridge penalty with and without normalised features (numpy)", "[probe][decode]") {
  const Eigen::MatrixXd x = four_x(), y = four_y();
  DecodeOptions o = leave_one_out(1.0);
  o.normalise = false;
  CHECK(decode(x, y, o).r2 == Approx(0.6405777997473499));
  o.normalise = true;
  CHECK(decode(x, y, o).r2 == Approx(0.7138645934564302));
  CHECK(decode(1000.0 * x, y, o).r2 == Approx(0.7138645934564302));
}

TEST_CASE("a PE that is a linear map of the coordinates decodes with R^2 = 1", "[probe][decode]") {
  const Eigen::MatrixXd coords = probe_test::grid();
  const Eigen::MatrixXd map = probe_test::random_matrix(2, 160, 51);
  const Eigen::MatrixXd pe = (coords * map).rowwise() + probe_test::random_matrix(1, 160, 52).row(0);
  DecodeOptions o;
  o.alpha = 1e-9;
  for (bool loo : {true, false}) {
    o.leave_one_out = loo;
    const Decode d = decode(pe, coords, o);
    CHECK(d.r2 == Approx(1).margin(1e-6));
    CHECK(d.r2_pooled == Approx(1).margin(1e-6));
    CHECK(d.r2_per_dim.size() == 2);
  }
  o.alpha = 0;
  CHECK(decode(pe, coords, o).r2 == Approx(1).margin(1e-9));
  // The identity map, more tokens than dims (the primal solve).
  o.alpha = 1e-9;
  const Eigen::MatrixXd wide = probe_test::grid(15, 20);
  CHECK(decode(wide, wide, o).r2 == Approx(1).margin(1e-6));
}

TEST_CASE("with normalise - the PE's scale does not change the score", "[probe][decode]") {
  const Eigen::MatrixXd coords = probe_test::grid();
  const Eigen::MatrixXd pe =
      coords * probe_test::random_matrix(2, 160, 61) + 3.0 * probe_test::random_matrix(16, 160, 62);
  DecodeOptions o;
  const double base = decode(pe, coords, o).r2;
  CHECK(decode(0.001 * pe, coords, o).r2 == Approx(base).epsilon(1e-9));
  CHECK(decode(1000.0 * pe, coords, o).r2 == Approx(base).epsilon(1e-9));
  o.normalise = false;
  CHECK(decode(0.001 * pe, coords, o).r2 < decode(pe, coords, o).r2);
}

TEST_CASE("a PE unrelated to the coordinates does not decode", "[probe][decode]") {
  const Eigen::MatrixXd coords = probe_test::grid();
  const Decode d = decode(probe_test::random_matrix(16, 160, 71), coords);
  CHECK(d.r2 < 0.3);
}

TEST_CASE("a coordinate without spread is left out of the mean", "[probe][decode]") {
  Eigen::MatrixXd coords(16, 3);
  coords.leftCols(2) = probe_test::grid();
  coords.col(2).setConstant(5);
  const Eigen::MatrixXd pe = coords.leftCols(2) * probe_test::random_matrix(2, 40, 81);
  DecodeOptions o;
  o.alpha = 1e-9;
  const Decode d = decode(pe, coords, o);
  CHECK(std::isnan(d.r2_per_dim(2)));
  CHECK(d.r2 == Approx(1).margin(1e-6));
}

TEST_CASE("folds are balanced and deterministic", "[probe][decode]") {
  const std::vector<int> a = fold_assignment(16, 5, true, 3);
  CHECK(a == fold_assignment(16, 5, true, 3));
  CHECK(a != fold_assignment(16, 5, true, 4));
  std::vector<int> sizes(5, 0);
  for (int f : a) ++sizes[static_cast<std::size_t>(f)];
  CHECK(*std::max_element(sizes.begin(), sizes.end()) - *std::min_element(sizes.begin(), sizes.end()) <= 1);
  const std::vector<int> plain = fold_assignment(7, 3, false, 0);
  CHECK(plain == std::vector<int>{0, 1, 2, 0, 1, 2, 0});
}

TEST_CASE("decode refuses bad input", "[probe][decode]") {
  CHECK_THROWS_AS(decode(Eigen::MatrixXd::Zero(4, 2), Eigen::MatrixXd::Zero(5, 2)), std::invalid_argument);
  CHECK_THROWS_AS(decode(Eigen::MatrixXd::Zero(1, 2), Eigen::MatrixXd::Zero(1, 2)), std::invalid_argument);
  DecodeOptions o;
  o.alpha = -1;
  CHECK_THROWS_AS(decode(Eigen::MatrixXd::Zero(4, 2), Eigen::MatrixXd::Zero(4, 2), o), std::invalid_argument);
}
