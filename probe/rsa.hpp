// Representational similarity analysis (RSA): how well the geometry of a PE's tokens mirrors the true geometry,
// read as the correlation between the two distance matrices over every unordered pair of tokens.
#pragma once

#include <Eigen/Core>

#include "probe/correlation.hpp"
#include "probe/distance.hpp"

namespace loci::probe {

struct RsaOptions {
  Metric pe_metric = Metric::euclidean;  // distance between PE rows
  // Relative tolerance under which distances rank as tied (see average_ranks); 0 for scipy's exact ties.
  double tie_tolerance = kDefaultTieTolerance;
};

struct Rsa {
  double spearman = 0;  // rank correlation of the upper triangles (ties share average ranks); the headline number
  double pearson = 0;   // linear correlation of the same vectors
};

// Both matrices T x T; only their strict upper triangles are compared. Throws std::invalid_argument when the shapes
// differ or either is not square.
Rsa rsa_of_distances(const Eigen::MatrixXd& pe_distance, const Eigen::MatrixXd& true_distance,
                     double tie_tolerance = kDefaultTieTolerance);

// PE (T x d) against any true T x T distance (euclidean between coordinates, graph hops, ...).
Rsa rsa(const Eigen::MatrixXd& pe, const Eigen::MatrixXd& true_distance, const RsaOptions& options = {});

// PE (T x d) against the euclidean distances between true coordinates (T x k).
Rsa rsa_to_coordinates(const Eigen::MatrixXd& pe, const Eigen::MatrixXd& coords, const RsaOptions& options = {});

}  // namespace loci::probe
