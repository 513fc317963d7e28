// Community structure of a PE: read the token-by-token similarity of a PE as a weighted graph and ask how well a
// given partition (grid rows, quadrants, hemispheres, networks) splits it, by Newman's modularity Q.
#pragma once

#include <Eigen/Core>

#include <vector>

namespace loci::probe {

enum class Similarity {
  cosine,       // <x_i, x_j> / (||x_i|| ||x_j||)
  correlation,  // Pearson correlation of rows across dims (cosine of the rows centred on their own means)
};

struct ModularityOptions {
  Similarity similarity = Similarity::cosine;
  // A token's similarity with itself is 1 for every PE and would only add the same self-loop weight to every node;
  // off, the diagonal is zeroed before Q is computed.
  bool self_loops = false;
};

// T x T similarity between the rows of pe, with a diagonal of 1 (NaN where a row is zero or constant, as in
// pairwise_distance).
Eigen::MatrixXd similarity_matrix(const Eigen::MatrixXd& pe, Similarity similarity = Similarity::cosine);

// Newman's Q of a weighted undirected graph: Q = (1/2m) sum_ij [A_ij - k_i k_j / 2m] [c_i == c_j], with
// k_i = sum_j A_ij and 2m = sum_ij A_ij, the diagonal taken as given. The weights are first made usable as a graph:
// symmetrised as (W + W^T)/2, NaN read as 0, and negative weights clipped to 0 (Q needs non-negative weights;
// anti-similar tokens are treated as unconnected rather than as repelling). partition[i] is token i's community
// label (any integers). NaN when no weight is positive. Throws std::invalid_argument on a non-square W or a
// partition of the wrong length.
double modularity(const Eigen::MatrixXd& weights, const std::vector<int>& partition);

// modularity(similarity_matrix(pe), partition) with the diagonal handled as the options say.
double pe_modularity(const Eigen::MatrixXd& pe, const std::vector<int>& partition,
                     const ModularityOptions& options = {});

}  // namespace loci::probe
