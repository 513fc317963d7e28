// Communities of a weighted graph (e.g. the functional connectivity of a dataset), for the modularity probe when
// the data carry no partition of their own: Newman's leading-eigenvector method (PNAS 103, 8577, 2006), each
// community split in two by the sign of the leading eigenvector of its generalised modularity matrix, for as long
// as a split raises Q. Deterministic: no random start, ties of sign broken towards the second group.
#pragma once

#include <Eigen/Core>

#include <vector>

namespace loci::probe {

// The community label (0, 1, ...; numbered by each community's first token) of every node. The weights are made
// a graph as modularity() makes them (symmetrised, NaN and negative weights read as 0, the diagonal zeroed).
// One community when no split raises Q (or nothing is connected). std::invalid_argument on a non-square matrix.
std::vector<int> leading_eigenvector_communities(const Eigen::MatrixXd& weights);

}  // namespace loci::probe
