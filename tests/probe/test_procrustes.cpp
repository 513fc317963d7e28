#include <catch2/catch.hpp>

#include <Eigen/SVD>

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "probe/procrustes.hpp"
#include "tests/probe/helpers.hpp"

using namespace loci::probe;

TEST_CASE("a rotated - translated and scaled PE has disparity 0 to the original", "[probe][procrustes]") {
  const Eigen::MatrixXd pe = probe_test::random_matrix(16, 160, 11);
  const Eigen::MatrixXd moved =
      (2.5 * pe * probe_test::random_orthogonal(160, 12)).rowwise() + probe_test::random_matrix(1, 160, 13).row(0);
  CHECK(procrustes_disparity(moved, pe) == Approx(0).margin(1e-12));
  CHECK(procrustes_disparity(pe, moved) == Approx(0).margin(1e-12));
  // The raw residual sees the scale and the offset.
  CHECK(procrustes_residual(moved, pe) > 1);
}

TEST_CASE("a rotated PE has residual 0 without centring or scaling", "[probe][procrustes]") {
  for (Eigen::Index t : {16, 300}) {
    const Eigen::MatrixXd pe = probe_test::random_matrix(t, 160, 21);
    const Eigen::MatrixXd rotated = pe * probe_test::random_orthogonal(160, 22);
    CHECK(procrustes_residual(rotated, pe) == Approx(0).margin(1e-9));
    const Procrustes p = procrustes(rotated, pe, ProcrustesOptions{false, false});
    CHECK(p.disparity == Approx(0).margin(1e-18));
    CHECK(p.nuclear == Approx(pe.squaredNorm()));
  }
}

TEST_CASE("coordinates are compared with a wider PE by zero-padding", "[probe][procrustes]") {
  const Eigen::MatrixXd coords = probe_test::grid();
  const Eigen::MatrixXd pe = coords * probe_test::isometric_embedding(2, 160, 31);
  CHECK(procrustes_residual(pe, coords) == Approx(0).margin(1e-9));
  CHECK(procrustes_residual(coords, pe) == Approx(0).margin(1e-9));
  CHECK(procrustes_disparity(pe, coords) == Approx(0).margin(1e-12));
  CHECK(pad_columns(coords, 5).rightCols(3).isZero(0));
}

TEST_CASE("1D hand values", "[probe][procrustes]") {
  // A = (-1, 0, 1), B = (-1, -1, 2), both already centred. Unit norm: A / sqrt 2, B / sqrt 6, and the only
  // orthogonal maps in 1D are +-1, so s = |A.B| = 3 / sqrt 12 and the disparity is 1 - 3/4.
  Eigen::MatrixXd a(3, 1), b(3, 1);
  a << -1, 0, 1;
  b << -1, -1, 2;
  CHECK(procrustes_disparity(a, b) == Approx(0.25));
  // Raw: min(||A - B||, ||-A - B||) = min(sqrt 2, sqrt 14).
  CHECK(procrustes_residual(a, b) == Approx(std::sqrt(2.0)));
  // Centring without scaling: both are centred already, so the same.
  CHECK(procrustes(a, b, ProcrustesOptions{true, false}).residual == Approx(std::sqrt(2.0)));
}

TEST_CASE("scipy's disparity formula on a square against a kite", "[probe][procrustes]") {
  // Expected from numpy: standardise both (centre, unit Frobenius norm), 1 - (sum of singular values of A^T B)^2,
  // which is scipy.spatial.procrustes(a, b)[2].
  Eigen::MatrixXd a(4, 2), b(4, 2);
  a << 0, 0, 1, 0, 1, 1, 0, 1;
  b << 0, 0, 2, 0, 1, 1, 0, 3;
  CHECK(procrustes_disparity(a, b) == Approx(0.2857142857142857).epsilon(1e-12));
  CHECK(procrustes_disparity(b, a) == Approx(0.2857142857142857).epsilon(1e-12));
}

TEST_CASE("the shortcuts agree with the plain w x w SVD", "[probe][procrustes]") {
  // Reference: pad, centre, scale, then 1 - (nuclear norm of A^T B)^2 from a full SVD, with no reduction at all.
  auto reference = [](const Eigen::MatrixXd& a, const Eigen::MatrixXd& b, bool standardise) {
    const Eigen::Index w = std::max(a.cols(), b.cols());
    Eigen::MatrixXd ap = pad_columns(a, w), bp = pad_columns(b, w);
    if (standardise) {
      ap.rowwise() -= ap.colwise().mean();
      bp.rowwise() -= bp.colwise().mean();
      ap /= ap.norm();
      bp /= bp.norm();
    }
    Eigen::JacobiSVD<Eigen::MatrixXd> svd(ap.transpose() * bp);
    const double s = svd.singularValues().sum();
    return standardise ? 1 - s * s : ap.squaredNorm() + bp.squaredNorm() - 2 * s;
  };
  for (Eigen::Index t : {16, 300}) {
    const Eigen::MatrixXd a = probe_test::random_matrix(t, 160, 41);
    for (Eigen::Index width : {160, 100, 3}) {  // same width (row-space reduction when t = 16), and narrower
      const Eigen::MatrixXd b = probe_test::random_matrix(t, width, 42);
      INFO("T = " << t << ", target width " << width);
      CHECK(procrustes_disparity(a, b) == Approx(reference(a, b, true)).epsilon(1e-10));
      CHECK(procrustes(a, b, ProcrustesOptions{false, false}).disparity ==
            Approx(reference(a, b, false)).epsilon(1e-10));
      // Either side may be the narrow one.
      CHECK(procrustes_disparity(b, a) == Approx(procrustes_disparity(a, b)).epsilon(1e-10));
      CHECK(procrustes_residual(b, a) == Approx(procrustes_residual(a, b)).epsilon(1e-10));
      CHECK(procrustes_residual(a, pad_columns(b, 160)) == Approx(procrustes_residual(a, b)).epsilon(1e-10));
    }
  }
}

TEST_CASE("procrustes refuses mismatched tokens and gives NaN for a point cloud of one point", "[probe][procrustes]") {
  CHECK_THROWS_AS(procrustes_disparity(Eigen::MatrixXd::Zero(4, 2), Eigen::MatrixXd::Zero(5, 2)),
                  std::invalid_argument);
  const Eigen::MatrixXd same_point = Eigen::MatrixXd::Ones(4, 3);
  CHECK(std::isnan(procrustes_disparity(same_point, probe_test::grid(2, 2))));
  CHECK(procrustes_residual(same_point, same_point) == Approx(0).margin(1e-12));
}
