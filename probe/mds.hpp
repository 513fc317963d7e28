// Classical (Torgerson) multidimensional scaling: a 2D or 3D picture of a PE whose pairwise distances are as close
// as a linear projection allows to the PE's own, for scatter plots coloured by true position.
#pragma once

#include <Eigen/Core>

namespace loci::probe {

struct Mds {
  // T x dims. Column c is the c-th eigenvector of B = -1/2 J D^2 J (J the centring matrix) scaled by the square
  // root of its eigenvalue; a column whose eigenvalue is not positive (beyond 1e-12 of the largest magnitude, i.e.
  // rounding) is zero. Each column's sign is fixed so that
  // its entry of largest magnitude is positive (on a tie within 1e-9 of that magnitude, the lowest token index),
  // so the same PE always draws the same way round.
  Eigen::MatrixXd embedding;
  // Every eigenvalue of B, largest first (negative ones mean D is not euclidean).
  Eigen::VectorXd eigenvalues;
  // Sum of the kept positive eigenvalues over the sum of all positive ones: the share of the configuration's
  // spread the picture shows. NaN when no eigenvalue is positive (all tokens at one point).
  double explained = 0;
};

// distance: T x T symmetric (euclidean distances between PE rows, typically). dims >= 1; dims beyond T give zero
// columns. Throws std::invalid_argument for a non-square matrix or dims < 1.
Mds classical_mds(const Eigen::MatrixXd& distance, int dims = 2);

}  // namespace loci::probe
