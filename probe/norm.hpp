// Size of a PE, tracked over training: the paper's story is that a small-norm init learns geometry while a
// large-norm one memorises, so the norm is the axis every other number is read against.
#pragma once

#include <Eigen/Core>

namespace loci::probe {

struct PeNorm {
  double frobenius = 0;      // sqrt(sum of squared entries)
  double mean_row_norm = 0;  // mean over tokens of each row's euclidean norm; 0 for an empty PE
};

PeNorm pe_norm(const Eigen::MatrixXd& pe);

}  // namespace loci::probe
