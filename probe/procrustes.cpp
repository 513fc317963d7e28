#include "probe/procrustes.hpp"

#include <Eigen/QR>
#include <Eigen/SVD>

#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>
#include <utility>

namespace loci::probe {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// The rows of an n x w matrix with n < w span at most n dimensions: with M^T = Q R (thin QR), M = R^T Q^T, and as Q
// has orthonormal columns every norm and inner product of rows is kept by R^T (n x n). Applied to [A; B], this turns
// a 160 x 160 SVD per call into a 32 x 32 one for the paper's 16-token PEs, with the same optimum.
Eigen::MatrixXd row_space_factor(const Eigen::MatrixXd& m) {
  Eigen::HouseholderQR<Eigen::MatrixXd> qr(m.transpose());
  return qr.matrixQR().topRows(m.rows()).triangularView<Eigen::Upper>().toDenseMatrix().transpose();
}

// Best rotation when one side is narrower, k < w columns: B = [N 0]. Then M = W^T B = [W^T N 0] has rank <= k, so
// the thin SVD of W^T N (w x k) gives U, V and the optimal R maps U onto the first k axes (R[:, :k] = U V^T) and the
// complement of U onto the rest. Hence ||c W R - B||^2 = ||c W U V^T - N||^2 + c^2 ||W - W U U^T||^2, both terms
// measured directly. This spares the w x w SVD for the coordinates (k = 2 or 3 against d = 160). The residual is
// symmetric in the pair (unit norms when c != 1), so which side is the source does not matter.
Procrustes against_narrow(const Eigen::MatrixXd& wide, const Eigen::MatrixXd& narrow, bool scale) {
  Eigen::BDCSVD<Eigen::MatrixXd> svd(wide.transpose() * narrow, Eigen::ComputeThinU | Eigen::ComputeThinV);
  const double nuclear = svd.singularValues().sum();
  const double c = scale ? nuclear : 1.0;
  const Eigen::MatrixXd wu = wide * svd.matrixU();
  const double head = (c * wu * svd.matrixV().transpose() - narrow).squaredNorm();
  const double rest = (wide - wu * svd.matrixU().transpose()).squaredNorm();
  const double disparity = head + c * c * rest;
  return Procrustes{std::sqrt(disparity), disparity, nuclear};
}

Procrustes against_same_width(Eigen::MatrixXd a, Eigen::MatrixXd b, bool scale) {
  const Eigen::Index t = a.rows();
  if (2 * t < a.cols()) {
    // The pair must share one basis for the reduction, so factor [A; B] together: both live in its row space.
    Eigen::MatrixXd stacked(2 * t, a.cols());
    stacked << a, b;
    const Eigen::MatrixXd f = row_space_factor(stacked);
    a = f.topRows(t);
    b = f.bottomRows(t);
  }
  Eigen::BDCSVD<Eigen::MatrixXd> svd(a.transpose() * b, Eigen::ComputeFullU | Eigen::ComputeFullV);
  const Eigen::MatrixXd rotation = svd.matrixU() * svd.matrixV().transpose();
  const double nuclear = svd.singularValues().sum();
  // The best scale for a rotated source is <A R, B> / ||A||^2, and both norms are 1 when scaling.
  const double c = scale ? nuclear : 1.0;
  // Measured directly, not as ||A||^2 + ||B||^2 - 2c<AR,B>, which cancels to noise of order sqrt(eps) when the
  // configurations agree: the residual of a perfect match must read 0, not 1e-8.
  const double residual = (c * a * rotation - b).norm();
  return Procrustes{residual, residual * residual, nuclear};
}

}  // namespace

Eigen::MatrixXd pad_columns(const Eigen::MatrixXd& m, Eigen::Index cols) {
  if (m.cols() >= cols) return m;
  Eigen::MatrixXd out = Eigen::MatrixXd::Zero(m.rows(), cols);
  out.leftCols(m.cols()) = m;
  return out;
}

Procrustes procrustes(const Eigen::MatrixXd& source, const Eigen::MatrixXd& target, const ProcrustesOptions& options) {
  if (source.rows() != target.rows())
    throw std::invalid_argument("procrustes: source has " + std::to_string(source.rows()) + " rows but target has " +
                                std::to_string(target.rows()));
  // Zero padding commutes with centring and scaling (a zero column stays zero and adds no norm), so both are done
  // on the matrices as given and the padding is left implicit where it can be.
  Eigen::MatrixXd a = source;
  Eigen::MatrixXd b = target;
  if (options.centre) {
    a.rowwise() -= a.colwise().mean();
    b.rowwise() -= b.colwise().mean();
  }
  if (options.scale) {
    const double na = a.norm();
    const double nb = b.norm();
    if (!(na > 0) || !(nb > 0)) return Procrustes{kNaN, kNaN, kNaN};
    a /= na;
    b /= nb;
  }
  if (a.cols() > b.cols()) return against_narrow(a, b, options.scale);
  if (a.cols() < b.cols()) return against_narrow(b, a, options.scale);
  return against_same_width(std::move(a), std::move(b), options.scale);
}

double procrustes_disparity(const Eigen::MatrixXd& source, const Eigen::MatrixXd& target) {
  return procrustes(source, target, ProcrustesOptions{true, true}).disparity;
}

double procrustes_residual(const Eigen::MatrixXd& source, const Eigen::MatrixXd& target) {
  return procrustes(source, target, ProcrustesOptions{false, false}).residual;
}

}  // namespace loci::probe
