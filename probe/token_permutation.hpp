// What the Mantel tests share: pairs of tokens read from a T x T matrix under a reordering of the tokens, and the
// statistic under random reorderings (the truth's tokens shuffled, rows and columns together).
#pragma once

#include <Eigen/Core>

#include <cstdint>
#include <functional>
#include <vector>

namespace loci::probe {

// m's upper triangle (i < j, row by row) with its rows and columns taken in `order`.
Eigen::VectorXd upper_triangle(const Eigen::MatrixXd& m, const std::vector<Eigen::Index>& order);

// The symmetric T x T matrix whose upper triangle is `v` (row by row), zero on the diagonal.
Eigen::MatrixXd symmetric_from_upper(const Eigen::VectorXd& v, Eigen::Index tokens);

// 0, 1, ..., tokens - 1.
std::vector<Eigen::Index> identity_order(Eigen::Index tokens);

// `statistic` under `permutations` orders drawn from one generator seeded with `seed`, each order a shuffle of the
// one before, in draw order: the null distribution of a Mantel test.
std::vector<double> permuted_statistics(const std::function<double(const std::vector<Eigen::Index>&)>& statistic,
                                        Eigen::Index tokens, int permutations, std::uint64_t seed);

}  // namespace loci::probe
