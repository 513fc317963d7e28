// Communities for the modularity probe: two dense groups joined by one weak edge are found as two, whatever the
// order of the tokens, and a graph without community structure stays whole.
#include <catch2/catch.hpp>

#include "probe/communities.hpp"
#include "probe/modularity.hpp"

using namespace loci;

namespace {

// Two cliques of `size` tokens, interleaved (token i belongs to group i % 2), joined by one edge of weight 0.1.
Eigen::MatrixXd two_cliques(int size) {
  const int n = 2 * size;
  Eigen::MatrixXd w = Eigen::MatrixXd::Zero(n, n);
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j)
      if (i != j && i % 2 == j % 2) w(i, j) = 1.0;
  w(0, 1) = w(1, 0) = 0.1;
  return w;
}

}  // namespace

TEST_CASE("The leading-eigenvector method splits two cliques and labels them by their first token") {
  const auto labels = probe::leading_eigenvector_communities(two_cliques(5));
  REQUIRE(labels.size() == 10);
  for (int i = 0; i < 10; ++i) CHECK(labels[static_cast<std::size_t>(i)] == i % 2);
  // The partition it finds has the modularity of the two groups, near the 0.5 of two equal disjoint cliques.
  CHECK(probe::modularity(two_cliques(5), labels) == Approx(0.49502).margin(1e-4));
}

TEST_CASE("A complete graph, an empty graph and negative weights give one community") {
  const Eigen::MatrixXd complete = Eigen::MatrixXd::Ones(6, 6);
  for (int v : probe::leading_eigenvector_communities(complete)) CHECK(v == 0);
  for (int v : probe::leading_eigenvector_communities(Eigen::MatrixXd::Zero(4, 4))) CHECK(v == 0);
  // Anti-correlations are no edges (as in modularity()): a matrix of only negative weights has nothing to split.
  for (int v : probe::leading_eigenvector_communities(-Eigen::MatrixXd::Ones(4, 4))) CHECK(v == 0);
  CHECK_THROWS_AS(probe::leading_eigenvector_communities(Eigen::MatrixXd::Zero(3, 4)), std::invalid_argument);
}

TEST_CASE("Four blocks of a block-model-like matrix are found as four") {
  const int n = 16;
  Eigen::MatrixXd w = Eigen::MatrixXd::Constant(n, n, 0.02);
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j)
      if (i / 4 == j / 4) w(i, j) = 1.0;
  const auto labels = probe::leading_eigenvector_communities(w);
  for (int i = 0; i < n; ++i) CHECK(labels[static_cast<std::size_t>(i)] == i / 4);
}
