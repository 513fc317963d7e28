// Agreement between two models' attention maps (the paper compares each learned-PE model with the 2d-fixed one):
// cosine similarity of the maps read as flat vectors.
#pragma once

#include <Eigen/Core>

#include <vector>

namespace loci::probe {

struct AttentionSimilarity {
  // Cosine of the flattened maps of each layer (index = layer). NaN for a layer where either map is all zeros.
  Eigen::VectorXd per_layer;
  // Cosine of all layers' maps concatenated into one vector each: layers with larger entries weigh more. NaN when
  // either side is all zeros.
  double overall = 0;
  // Plain mean of per_layer over layers that are not NaN: every layer weighs the same.
  double mean_per_layer = 0;
};

// a[l] and b[l] are layer l's maps (T x T, or any shape as long as a[l] and b[l] agree; average over samples or
// heads before calling). Throws std::invalid_argument when the layer counts or a layer's shapes differ.
AttentionSimilarity attention_cosine(const std::vector<Eigen::MatrixXd>& a, const std::vector<Eigen::MatrixXd>& b);

// Cosine similarity of two same-shape matrices read as flat vectors; NaN when either is all zeros.
double flat_cosine(const Eigen::MatrixXd& a, const Eigen::MatrixXd& b);

}  // namespace loci::probe
