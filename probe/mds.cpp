#include "probe/mds.hpp"

#include <Eigen/Eigenvalues>

#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

namespace loci::probe {

namespace {

void fix_sign(Eigen::Ref<Eigen::VectorXd> v) {
  const double top = v.cwiseAbs().maxCoeff();
  if (!(top > 0)) return;
  for (Eigen::Index i = 0; i < v.size(); ++i) {
    if (std::abs(v(i)) >= top * (1 - 1e-9)) {
      if (v(i) < 0) v = -v;
      return;
    }
  }
}

}  // namespace

Mds classical_mds(const Eigen::MatrixXd& distance, int dims) {
  if (distance.rows() != distance.cols())
    throw std::invalid_argument("classical_mds: distance matrix is " + std::to_string(distance.rows()) + "x" +
                                std::to_string(distance.cols()) + ", not square");
  if (dims < 1) throw std::invalid_argument("classical_mds: dims must be at least 1");
  const Eigen::Index n = distance.rows();
  Mds out;
  out.embedding = Eigen::MatrixXd::Zero(n, dims);
  if (n == 0) {
    out.explained = std::numeric_limits<double>::quiet_NaN();
    return out;
  }

  // Double centring of the squared distances: B_ij = -1/2 (D2_ij - row_i - col_j + grand), which for euclidean D is
  // the Gram matrix of the centred configuration.
  const Eigen::MatrixXd d2 = distance.array().square();
  const Eigen::VectorXd row_mean = d2.rowwise().mean();
  const Eigen::RowVectorXd col_mean = d2.colwise().mean();
  const double grand = d2.mean();
  Eigen::MatrixXd b = d2;
  b.colwise() -= row_mean;
  b.rowwise() -= col_mean;
  b.array() += grand;
  b *= -0.5;
  // Symmetrise so rounding in an asymmetric input cannot leak into the solver, which reads one triangle only.
  b = 0.5 * (b + b.transpose()).eval();

  Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> eig(b);
  if (eig.info() != Eigen::Success) throw std::runtime_error("classical_mds: eigen-decomposition failed");
  // Eigen sorts ascending; the picture wants the largest first.
  out.eigenvalues = eig.eigenvalues().reverse();
  const Eigen::MatrixXd vectors = eig.eigenvectors().rowwise().reverse();

  // Eigenvalues within rounding of zero are zero: a flat configuration must not grow a noise axis in the picture.
  const double floor = 1e-12 * out.eigenvalues.cwiseAbs().maxCoeff();
  double kept = 0, positive = 0;
  for (Eigen::Index c = 0; c < n; ++c) {
    const double lambda = out.eigenvalues(c);
    if (!(lambda > floor)) continue;
    positive += lambda;
    if (c < dims) {
      kept += lambda;
      out.embedding.col(c) = vectors.col(c) * std::sqrt(lambda);
      fix_sign(out.embedding.col(c));
    }
  }
  out.explained = positive > 0 ? kept / positive : std::numeric_limits<double>::quiet_NaN();
  return out;
}

}  // namespace loci::probe
