// Neighbourhood preservation: do the tokens nearest to each token in PE space tend to be its nearest in truth?
// Local where RSA is global: a PE can keep every neighbourhood while bending the large distances.
#pragma once

#include <Eigen/Core>

#include <vector>

namespace loci::probe {

struct KnnOptions {
  // Neighbours per token; clipped to T - 1.
  int k = 4;
  // Ties in true distance are common (a grid cell has 4 neighbours at distance 1, 4 at sqrt 2). Off: the true
  // neighbour set is the first k by (distance, index), so a PE choosing a different but equally near token loses
  // the point. On: a PE neighbour counts if its true distance is at most the k-th smallest, so no tie decides.
  bool include_true_ties = false;
  // Distances within this fraction of the row's largest distance are tied (and then ordered by index), so that
  // rounding noise in a rotated PE's equal distances cannot pick the neighbours (see average_ranks).
  double tie_tolerance = 1e-9;
};

// For each token i, the indices of its k nearest other tokens by (distance, index): the lower index wins a tie
// (distances within tie_tolerance * the row's largest finite distance) and NaN counts as farther than anything.
// Throws std::invalid_argument for a non-square matrix.
std::vector<std::vector<Eigen::Index>> nearest_neighbours(const Eigen::MatrixXd& distance, int k,
                                                          double tie_tolerance = 1e-9);

// Mean over tokens of |PE neighbours of i  intersect  true neighbours of i| / k, in [0, 1]; 1 for the same
// configuration. Both matrices T x T. NaN when T < 2.
double knn_overlap(const Eigen::MatrixXd& pe_distance, const Eigen::MatrixXd& true_distance,
                   const KnnOptions& options = {});

}  // namespace loci::probe
