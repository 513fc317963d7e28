// RSA against truths other than euclidean distance, so a PE that organises by another geometry shows it: graph
// hops on network data, the functional connectivity of activity data, Manhattan distance between coordinates (the
// grid's own metric), and on a grid whether two tokens share a row or a column (the Latin square's constraint).
#include <cmath>
#include <limits>
#include <set>

#include "probe/distance.hpp"
#include "probe/registry.hpp"
#include "probe/rsa.hpp"

namespace loci::probe {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

double rsa_against(const Eigen::MatrixXd& pe, const Eigen::MatrixXd& truth, Metric metric) {
  return rsa_of_distances(pairwise_distance(pe, metric), truth).spearman;
}

ProbeValues rsa_hops(const Eigen::MatrixXd& pe, const ProbeContext& c) {
  return {{"rsa_hops_spearman", c.hops.size() == 0 ? kNaN : rsa_against(pe, c.hops, c.pe_metric)}};
}

// The paper's comparison of a PE with functional connectivity: PE distances against 1 - FC, so that a PE whose
// near tokens are the correlated ones scores positive, like RSA against distance.
ProbeValues rsa_fc(const Eigen::MatrixXd& pe, const ProbeContext& c) {
  if (c.fc.size() == 0) return {{"rsa_fc_spearman", kNaN}};
  return {{"rsa_fc_spearman", rsa_against(pe, (1.0 - c.fc.array()).matrix(), c.pe_metric)}};
}

ProbeValues rsa_manhattan(const Eigen::MatrixXd& pe, const ProbeContext& c) {
  const Eigen::Index t = c.positions.rows();
  Eigen::MatrixXd d(t, t);
  for (Eigen::Index i = 0; i < t; ++i)
    for (Eigen::Index j = 0; j < t; ++j) d(i, j) = (c.positions.row(i) - c.positions.row(j)).cwiseAbs().sum();
  return {{"rsa_manhattan_spearman", rsa_against(pe, d, c.pe_metric)}};
}

// 0 for tokens on one line of a grid (same value on some axis), 1 otherwise; NaN off a grid (an axis with as many
// distinct values as tokens shares no line).
ProbeValues rsa_same_line(const Eigen::MatrixXd& pe, const ProbeContext& c) {
  const Eigen::Index t = c.positions.rows(), k = c.positions.cols();
  for (Eigen::Index a = 0; a < k; ++a) {
    std::set<double> values(c.positions.col(a).data(), c.positions.col(a).data() + t);
    if (static_cast<Eigen::Index>(values.size()) * 2 > t) return {{"rsa_same_line_spearman", kNaN}};
  }
  Eigen::MatrixXd d(t, t);
  for (Eigen::Index i = 0; i < t; ++i)
    for (Eigen::Index j = 0; j < t; ++j) {
      bool shared = false;
      for (Eigen::Index a = 0; a < k; ++a) shared = shared || c.positions(i, a) == c.positions(j, a);
      d(i, j) = shared ? 0.0 : 1.0;
    }
  return {{"rsa_same_line_spearman", rsa_against(pe, d, c.pe_metric)}};
}

}  // namespace

LOCI_REGISTER(ProbeInfo, {"rsa_hops",
                          "Spearman between PE distances and graph hops (networks and parcel graphs)",
                          {"rsa_hops_spearman"},
                          rsa_hops});
LOCI_REGISTER(ProbeInfo, {"rsa_fc",
                          "Spearman between PE distances and 1 - the functional connectivity of the training split",
                          {"rsa_fc_spearman"},
                          rsa_fc});
LOCI_REGISTER(ProbeInfo, {"rsa_manhattan",
                          "Spearman between PE distances and Manhattan distances of the coordinates",
                          {"rsa_manhattan_spearman"},
                          rsa_manhattan});
LOCI_REGISTER(ProbeInfo, {"rsa_same_line",
                          "Spearman between PE distances and 'not on one row or column' (grids only)",
                          {"rsa_same_line_spearman"},
                          rsa_same_line});

}  // namespace loci::probe
