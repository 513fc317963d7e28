#include <catch2/catch.hpp>

#include <cmath>
#include <stdexcept>

#include "probe/attention.hpp"
#include "probe/modularity.hpp"
#include "probe/norm.hpp"

using namespace loci::probe;

namespace {
// Unweighted adjacency of n nodes from an edge list.
Eigen::MatrixXd graph(int n, std::initializer_list<std::pair<int, int>> edges) {
  Eigen::MatrixXd a = Eigen::MatrixXd::Zero(n, n);
  for (auto [i, j] : edges) a(i, j) = a(j, i) = 1;
  return a;
}
}  // namespace

TEST_CASE("modularity of two triangles joined by one edge", "[probe][modularity]") {
  // m = 7 edges; each triangle holds 3 edges and degree 7: Q = 2 (3/7 - (7/14)^2) = 5/14.
  const Eigen::MatrixXd a = graph(6, {{0, 1}, {1, 2}, {0, 2}, {3, 4}, {4, 5}, {3, 5}, {2, 3}});
  CHECK(modularity(a, {0, 0, 0, 1, 1, 1}) == Approx(5.0 / 14));
  CHECK(modularity(a, {7, 7, 7, 7, 7, 7}) == Approx(0).margin(1e-15));
  // Labels are names only.
  CHECK(modularity(a, {-3, -3, -3, 9, 9, 9}) == Approx(5.0 / 14));
  // Negative weights are clipped, so an anti-similar pair does not change Q.
  Eigen::MatrixXd signed_a = a;
  signed_a(0, 5) = signed_a(5, 0) = -4;
  CHECK(modularity(signed_a, {0, 0, 0, 1, 1, 1}) == Approx(5.0 / 14));
}

TEST_CASE("modularity of two separate triangles is 1/2", "[probe][modularity]") {
  const Eigen::MatrixXd a = graph(6, {{0, 1}, {1, 2}, {0, 2}, {3, 4}, {4, 5}, {3, 5}});
  CHECK(modularity(a, {0, 0, 0, 1, 1, 1}) == Approx(0.5));
  CHECK(std::isnan(modularity(Eigen::MatrixXd::Zero(3, 3), {0, 0, 1})));
  CHECK_THROWS_AS(modularity(a, {0, 1}), std::invalid_argument);
}

TEST_CASE("modularity of a PE-similarity graph", "[probe][modularity]") {
  // Two groups along orthogonal directions: cosine 1 within, 0 across; with the diagonal dropped the graph is two
  // separate weighted triangles.
  Eigen::MatrixXd pe = Eigen::MatrixXd::Zero(6, 4);
  pe.block(0, 0, 3, 1).setConstant(2);
  pe.block(3, 1, 3, 1).setConstant(0.5);
  CHECK(pe_modularity(pe, {0, 0, 0, 1, 1, 1}) == Approx(0.5));
  const Eigen::MatrixXd s = similarity_matrix(pe);
  CHECK(s(0, 0) == Approx(1));
  CHECK(s(0, 4) == Approx(0).margin(1e-15));
  // Self-loops add weight 1 to every node: Q = 2 (9/18 - (9/18)^2) = 1/2 still for this symmetric case.
  CHECK(pe_modularity(pe, {0, 0, 0, 1, 1, 1}, ModularityOptions{Similarity::cosine, true}) == Approx(0.5));
  CHECK(pe_modularity(pe, {0, 1, 0, 1, 0, 1}) < 0);
}

TEST_CASE("attention cosine per layer and overall", "[probe][attention]") {
  Eigen::MatrixXd a0(2, 2), b0(2, 2), a1(2, 2), b1(2, 2);
  a0 << 1, 0, 0, 1;
  b0 << 1, 1, 0, 0;  // dot 1, norms sqrt 2 and sqrt 2: cos = 1/2
  a1 << 0.5, 0.5, 0.5, 0.5;
  b1 << 0.5, 0.5, 0.5, 0.5;  // identical: cos = 1
  const AttentionSimilarity s = attention_cosine({a0, a1}, {b0, b1});
  CHECK(s.per_layer(0) == Approx(0.5));
  CHECK(s.per_layer(1) == Approx(1));
  CHECK(s.mean_per_layer == Approx(0.75));
  // Concatenated: dot 1 + 1 = 2, squared norms 2 + 1 and 2 + 1: cos = 2 / 3.
  CHECK(s.overall == Approx(2.0 / 3));
  CHECK_THROWS_AS(attention_cosine({a0}, {b0, b1}), std::invalid_argument);
  CHECK_THROWS_AS(flat_cosine(a0, Eigen::MatrixXd::Zero(3, 3)), std::invalid_argument);
  CHECK(std::isnan(flat_cosine(a0, Eigen::MatrixXd::Zero(2, 2))));
}

TEST_CASE("PE norms", "[probe][norm]") {
  Eigen::MatrixXd pe(2, 2);
  pe << 3, 4, 0, 0;
  const PeNorm n = pe_norm(pe);
  CHECK(n.frobenius == Approx(5));
  CHECK(n.mean_row_norm == Approx(2.5));
  CHECK(pe_norm(Eigen::MatrixXd(0, 3)).mean_row_norm == 0);
}
