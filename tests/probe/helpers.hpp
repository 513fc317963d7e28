// Fixtures for the probe tests: the LST's 4x4 grid, seeded random matrices and orthogonal maps.
#pragma once

#include <Eigen/Core>
#include <Eigen/QR>

#include <cstdint>
#include <initializer_list>
#include <random>

namespace probe_test {

// Row-major cells of a rows x cols grid: token t at (t / cols, t % cols), as the LST orders its 16 cells.
inline Eigen::MatrixXd grid(int rows = 4, int cols = 4) {
  Eigen::MatrixXd c(rows * cols, 2);
  for (int t = 0; t < rows * cols; ++t) {
    c(t, 0) = t / cols;
    c(t, 1) = t % cols;
  }
  return c;
}

// One column of the given values: points on a line.
inline Eigen::MatrixXd column(std::initializer_list<double> v) {
  Eigen::MatrixXd out(static_cast<Eigen::Index>(v.size()), 1);
  Eigen::Index i = 0;
  for (double x : v) out(i++, 0) = x;
  return out;
}

inline Eigen::MatrixXd random_matrix(Eigen::Index rows, Eigen::Index cols, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> normal(0.0, 1.0);
  Eigen::MatrixXd m(rows, cols);
  for (Eigen::Index j = 0; j < cols; ++j)
    for (Eigen::Index i = 0; i < rows; ++i) m(i, j) = normal(rng);
  return m;
}

// n x n orthogonal (a rotation or a reflection) from the QR of a random matrix.
inline Eigen::MatrixXd random_orthogonal(Eigen::Index n, std::uint64_t seed) {
  Eigen::HouseholderQR<Eigen::MatrixXd> qr(random_matrix(n, n, seed));
  return qr.householderQ() * Eigen::MatrixXd::Identity(n, n);
}

// k x d with orthonormal rows (k <= d): embeds k-dim coordinates isometrically in d dims.
inline Eigen::MatrixXd isometric_embedding(Eigen::Index k, Eigen::Index d, std::uint64_t seed) {
  return random_orthogonal(d, seed).topRows(k);
}

}  // namespace probe_test
