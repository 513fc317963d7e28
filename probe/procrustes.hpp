// Orthogonal Procrustes: how far a PE is from a target configuration (the oracle PE, or the true coordinates)
// once the best rotation/reflection is allowed, since a learned PE is only meaningful up to such a map.
#pragma once

#include <Eigen/Core>

namespace loci::probe {

struct ProcrustesOptions {
  // Subtract each matrix's column means first, so translation is free.
  bool centre = true;
  // Divide each matrix (after centring) by its Frobenius norm, and let the source also take the best uniform scale
  // after rotating, so overall size is free. With centre too this is scipy.spatial.procrustes.
  bool scale = true;
};

struct Procrustes {
  // ||c A R - B||_F minimised over orthogonal R (and the scalar c >= 0 when scale is on, else c = 1), with A and B
  // the source and target after the optional centring and scaling.
  double residual = 0;
  // residual^2. With centre and scale on this is scipy.spatial.procrustes's disparity, 1 - (sum of the singular
  // values of A^T B)^2, in [0, 1]; 0 means equal up to translation, rotation, reflection and scale.
  double disparity = 0;
  // Sum of the singular values of A^T B (after centring and scaling): the best achievable <A R, B>.
  double nuclear = 0;
};

// source and target must have the same number of rows (tokens); when their widths differ the narrower one is
// padded with zero columns, so coordinates (T x k) can be compared with a PE (T x d). Throws std::invalid_argument
// when the row counts differ. With scale on, a source or target with zero norm (after centring) gives NaN
// residual and disparity: no scale can be chosen for it.
Procrustes procrustes(const Eigen::MatrixXd& source, const Eigen::MatrixXd& target,
                      const ProcrustesOptions& options = {});

// The two readings the analyses report: scipy's disparity (centre + scale), and the plain residual norm after the
// best rotation with neither (sizes and offsets count).
double procrustes_disparity(const Eigen::MatrixXd& source, const Eigen::MatrixXd& target);
double procrustes_residual(const Eigen::MatrixXd& source, const Eigen::MatrixXd& target);

// m with zero columns appended up to `cols` (m itself when it is already that wide or wider).
Eigen::MatrixXd pad_columns(const Eigen::MatrixXd& m, Eigen::Index cols);

}  // namespace loci::probe
