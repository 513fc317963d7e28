// The analyses score learned PEs against an oracle computed without LibTorch (probe/oracle); it must be the
// very PE the trainer's sinusoidal_nd builds, and the paper's 2d-fixed PE up to a permutation of its columns.

#include "models/positions/sinusoid.hpp"
#include "probe/oracle.hpp"
#include "probe/procrustes.hpp"

#include <catch2/catch.hpp>

namespace {

Eigen::MatrixXd to_eigen(const torch::Tensor& t) {
  const auto c = t.to(torch::kFloat64).contiguous();
  Eigen::MatrixXd m(c.size(0), c.size(1));
  for (int64_t i = 0; i < c.size(0); ++i)
    for (int64_t j = 0; j < c.size(1); ++j) m(i, j) = c[i][j].item<double>();
  return m;
}

}  // namespace

TEST_CASE("The probe oracle equals the trainer's sinusoidal_nd PE") {
  const auto coords =
      torch::tensor({{0.0, 1.5, -2.0}, {3.0, 0.25, 7.0}, {-1.0, 2.0, 0.5}, {4.5, -3.0, 1.0}}, torch::kFloat64);
  for (int64_t width : {12, 20, 160}) {
    loci::probe::OracleOptions o;
    o.base = 100.0;
    const Eigen::MatrixXd ours = loci::probe::sinusoidal_oracle(to_eigen(coords), width, o);
    const Eigen::MatrixXd theirs = to_eigen(loci::models::sinusoid_table_nd(coords, width, 100.0));
    REQUIRE(ours.cols() == width);
    CHECK((ours - theirs).cwiseAbs().maxCoeff() < 1e-6);  // the trainer's table is float32
  }
  CHECK_THROWS_AS(loci::probe::sinusoidal_oracle(to_eigen(coords), 4), std::invalid_argument);
}

TEST_CASE("On the 4x4 grid the oracle is the paper's 2d-fixed PE up to column order") {
  const auto grid = loci::models::grid_positions(4, 4);
  const Eigen::MatrixXd oracle = loci::probe::sinusoidal_oracle(to_eigen(grid), 160);
  // 2d-fixed: the column's sinusoid first, then the row's (models/pe/sinusoidal_2d.cpp).
  const Eigen::MatrixXd fixed2d = to_eigen(torch::cat({loci::models::sinusoid_table(grid.select(1, 1), 80, 10000.0),
                                                       loci::models::sinusoid_table(grid.select(1, 0), 80, 10000.0)},
                                                      1));
  CHECK(loci::probe::procrustes_disparity(fixed2d, oracle) < 1e-10);
  CHECK((oracle.leftCols(80) - fixed2d.rightCols(80)).cwiseAbs().maxCoeff() < 1e-6);
}
