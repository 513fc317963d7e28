#include "probe/norm.hpp"

namespace loci::probe {

PeNorm pe_norm(const Eigen::MatrixXd& pe) {
  PeNorm out;
  out.frobenius = pe.norm();
  out.mean_row_norm = pe.rows() > 0 ? pe.rowwise().norm().mean() : 0.0;
  return out;
}

}  // namespace loci::probe
