#include "probe/token_permutation.hpp"

#include <algorithm>
#include <numeric>
#include <random>

namespace loci::probe {

Eigen::VectorXd upper_triangle(const Eigen::MatrixXd& m, const std::vector<Eigen::Index>& order) {
  const Eigen::Index t = m.rows();
  Eigen::VectorXd v(t * (t - 1) / 2);
  Eigen::Index k = 0;
  for (Eigen::Index i = 0; i < t; ++i)
    for (Eigen::Index j = i + 1; j < t; ++j)
      v(k++) = m(order[static_cast<std::size_t>(i)], order[static_cast<std::size_t>(j)]);
  return v;
}

Eigen::MatrixXd symmetric_from_upper(const Eigen::VectorXd& v, Eigen::Index tokens) {
  Eigen::MatrixXd m = Eigen::MatrixXd::Zero(tokens, tokens);
  Eigen::Index k = 0;
  for (Eigen::Index i = 0; i < tokens; ++i)
    for (Eigen::Index j = i + 1; j < tokens; ++j) m(i, j) = m(j, i) = v(k++);
  return m;
}

std::vector<Eigen::Index> identity_order(Eigen::Index tokens) {
  std::vector<Eigen::Index> order(static_cast<std::size_t>(tokens));
  std::iota(order.begin(), order.end(), 0);
  return order;
}

std::vector<double> permuted_statistics(const std::function<double(const std::vector<Eigen::Index>&)>& statistic,
                                        Eigen::Index tokens, int permutations, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<Eigen::Index> order = identity_order(tokens);
  std::vector<double> null;
  null.reserve(static_cast<std::size_t>(std::max(permutations, 0)));
  for (int p = 0; p < permutations; ++p) {
    std::shuffle(order.begin(), order.end(), rng);
    null.push_back(statistic(order));
  }
  return null;
}

}  // namespace loci::probe
