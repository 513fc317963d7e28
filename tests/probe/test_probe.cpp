#include <catch2/catch.hpp>

#include <cmath>
#include <stdexcept>
#include <string>

#include "probe/probe.hpp"
#include "tests/probe/helpers.hpp"

using namespace loci::probe;

namespace {

// A small PE with nothing special about it, written as a formula so numpy can rebuild it:
// pe[i, j] = sin(1.3 i + 0.7 j^2 + 0.1), 6 tokens x 3 dims, on a 2 x 3 grid (x = i % 3, y = i / 3).
Eigen::MatrixXd formula_pe() {
  Eigen::MatrixXd pe(6, 3);
  for (int i = 0; i < 6; ++i)
    for (int j = 0; j < 3; ++j) pe(i, j) = std::sin(1.3 * i + 0.7 * j * j + 0.1);
  return pe;
}

Eigen::MatrixXd formula_coords() {
  Eigen::MatrixXd c(6, 2);
  for (int i = 0; i < 6; ++i) c.row(i) << i % 3, i / 3;
  return c;
}

double value(const std::vector<std::pair<std::string, double>>& pairs, const std::string& name) {
  for (const auto& [n, v] : pairs)
    if (n == name) return v;
  FAIL("no field " << name);
  return 0;
}

}  // namespace

TEST_CASE("probe_pe agrees with numpy on a small PE", "[probe]") {
  // Expected values from numpy: upper triangles of the euclidean distance matrices, np.corrcoef of them (Pearson)
  // and of their average ranks (Spearman, the truth has ties); the Procrustes numbers after padding the coordinates
  // with a zero column, disparity as scipy.spatial.procrustes computes it.
  const ProbeReport r = probe_pe(formula_pe(), formula_coords());
  CHECK(r.rsa_pearson == Approx(-0.16140735156131805).epsilon(1e-12));
  CHECK(r.rsa_spearman == Approx(-0.01714612338222047).epsilon(1e-10));
  CHECK(r.procrustes_coords_disparity == Approx(0.7858099294091352).epsilon(1e-12));
  CHECK(r.procrustes_coords_residual == Approx(3.595274582780493).epsilon(1e-12));
  ProbeOptions cos;
  cos.rsa.pe_metric = Metric::cosine;
  CHECK(probe_pe(formula_pe(), formula_coords(), cos).rsa_spearman == Approx(0.030481997123947495).epsilon(1e-10));
}

TEST_CASE("probe_pe of a PE that is the grid - rotated into 160 dims", "[probe]") {
  const Eigen::MatrixXd coords = probe_test::grid();
  const Eigen::MatrixXd oracle = coords * probe_test::isometric_embedding(2, 160, 111);
  const Eigen::MatrixXd pe = (0.1 * oracle * probe_test::random_orthogonal(160, 112)).rowwise() +
                             probe_test::random_matrix(1, 160, 113).row(0);
  ProbeOptions o;
  o.decode.leave_one_out = true;
  o.decode.alpha = 1e-9;
  o.partition = {0, 0, 1, 1, 0, 0, 1, 1, 2, 2, 3, 3, 2, 2, 3, 3};  // quadrants
  const ProbeReport r = probe_pe(pe, coords, o, &oracle);
  CHECK(r.tokens == 16);
  CHECK(r.pe_dims == 160);
  CHECK(r.coord_dims == 2);
  CHECK(r.rsa_spearman == Approx(1));
  CHECK(r.rsa_pearson == Approx(1));
  CHECK(r.procrustes_oracle_disparity == Approx(0).margin(1e-12));
  CHECK(r.procrustes_coords_disparity == Approx(0).margin(1e-12));
  CHECK(r.procrustes_oracle_residual > 0);  // offset and scale count in the raw reading
  CHECK(r.decode_r2 == Approx(1).margin(1e-6));
  CHECK(r.knn_overlap == Approx(1));
  CHECK(r.mds_explained == Approx(1));
  CHECK(r.mds.rows() == 16);
  CHECK(r.mds.cols() == 2);
  CHECK(std::isfinite(r.modularity));
  CHECK(r.norm_frobenius == Approx(pe.norm()));
}

TEST_CASE("probe_pe marks what it cannot compute as NaN", "[probe]") {
  const Eigen::MatrixXd coords = probe_test::grid();
  const ProbeReport r = probe_pe(probe_test::random_matrix(16, 32, 121), coords);
  CHECK(std::isnan(r.procrustes_oracle_disparity));
  CHECK(std::isnan(r.procrustes_oracle_residual));
  CHECK(std::isnan(r.modularity));
  CHECK(std::isfinite(r.rsa_spearman));
  CHECK(std::isfinite(r.decode_r2));
}

TEST_CASE("probe_pe uses a given true distance", "[probe]") {
  // Graph hops on a path of 16 nodes, and a PE placing them in order along an arc (see test_rsa.cpp): perfect in
  // rank, not linearly; against the coordinates' own euclidean distance the numbers are the same.
  Eigen::MatrixXd hops(16, 16), pe(16, 2), coords(16, 1);
  for (int i = 0; i < 16; ++i) {
    for (int j = 0; j < 16; ++j) hops(i, j) = std::abs(i - j);
    pe.row(i) << std::cos(0.1 * i), std::sin(0.1 * i);
    coords(i, 0) = i;
  }
  ProbeOptions o;
  o.true_distance = hops;
  const ProbeReport r = probe_pe(pe, coords, o);
  CHECK(r.rsa_spearman == Approx(1));
  CHECK(r.rsa_pearson < 1 - 1e-6);
  CHECK(r.knn_overlap == Approx(1));
  o.true_distance = 2.0 * hops;
  CHECK(probe_pe(pe, coords, o).rsa_pearson == Approx(r.rsa_pearson));
  o.true_distance = Eigen::MatrixXd::Zero(15, 15);
  CHECK_THROWS_AS(probe_pe(pe, coords, o), std::invalid_argument);
}

TEST_CASE("probe_pe refuses mismatched inputs", "[probe]") {
  const Eigen::MatrixXd pe = probe_test::random_matrix(16, 8, 131);
  CHECK_THROWS_AS(probe_pe(pe, probe_test::grid(3, 5)), std::invalid_argument);
  const Eigen::MatrixXd oracle = probe_test::random_matrix(15, 8, 132);
  CHECK_THROWS_AS(probe_pe(pe, probe_test::grid(), {}, &oracle), std::invalid_argument);
  ProbeOptions o;
  o.partition = {0, 1};
  CHECK_THROWS_AS(probe_pe(pe, probe_test::grid(), o), std::invalid_argument);
}

TEST_CASE("to_pairs lists every number under a fixed name", "[probe]") {
  const ProbeReport r = probe_pe(probe_test::random_matrix(16, 8, 141), probe_test::grid());
  const auto pairs = to_pairs(r);
  const std::vector<std::string> names = {"tokens",
                                          "pe_dims",
                                          "coord_dims",
                                          "norm_frobenius",
                                          "norm_mean_row",
                                          "rsa_spearman",
                                          "rsa_pearson",
                                          "procrustes_oracle_disparity",
                                          "procrustes_oracle_residual",
                                          "procrustes_coords_disparity",
                                          "procrustes_coords_residual",
                                          "decode_r2",
                                          "decode_r2_pooled",
                                          "decode_r2_dim0",
                                          "decode_r2_dim1",
                                          "knn_overlap",
                                          "mds_explained",
                                          "modularity"};
  REQUIRE(pairs.size() == names.size());
  for (std::size_t i = 0; i < names.size(); ++i) CHECK(pairs[i].first == names[i]);
  CHECK(value(pairs, "rsa_spearman") == r.rsa_spearman);
  CHECK(value(pairs, "tokens") == 16);
  const auto with_mds = to_pairs(r, true);
  CHECK(with_mds.size() == names.size() + 32);
  CHECK(value(with_mds, "mds_15_1") == r.mds(15, 1));
}
