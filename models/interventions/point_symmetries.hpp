#pragma once
// Relabellings of the tokens that keep their pairwise distances: the symmetries of the true positions (the 7
// rotations and reflections of a square grid, a mirror of a symmetric point set), by which a model that reads its
// PE's geometry should be barely hurt. Where the positions have no exact symmetry (a random graph's nodes, parcels),
// the nearest relabelling under each axis's mirror, with how far it is from keeping the distances.

#include <torch/types.h>

#include <cstdint>
#include <string>
#include <vector>

namespace loci::models {

struct PointSymmetry {
  std::string name;                  // "(-y,x)": where each axis goes, about the centroid; "mirror x (nearest)"
  std::vector<int64_t> permutation;  // token i takes the place of token permutation[i]
  double distortion = 0;             // distance_distortion of the relabelling (0 when exact)
  bool exact = false;
};

// Every signed permutation of the axes (about the centroid) that maps the point set onto itself, less the identity;
// when there is none, the per-axis mirrors matched to the nearest tokens (a minimum-cost assignment). [T, dims].
std::vector<PointSymmetry> point_symmetries(const torch::Tensor& positions);

// The assignment of rows to columns with the least total cost (each row one column, each column one row), for a
// square cost matrix; the Hungarian method, O(n^3). Returns column of each row.
std::vector<int64_t> min_cost_assignment(const std::vector<std::vector<double>>& cost);

}  // namespace loci::models
