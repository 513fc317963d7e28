#include "apps/analysis/probe_setup.hpp"

#include <algorithm>
#include <map>
#include <numeric>
#include <random>
#include <set>

#include "apps/analysis/analysis_json.hpp"
#include "probe/communities.hpp"
#include "probe/correlation.hpp"
#include "probe/oracle.hpp"
#include "probe/registry.hpp"

namespace loci::analysis {

using nlohmann::ordered_json;

namespace {

// The rows of a grid (few distinct values on axis 0), or an empty partition.
std::vector<int> grid_rows(const Eigen::MatrixXd& positions) {
  const Eigen::Index t = positions.rows();
  if (t < 4 || positions.cols() == 0) return {};
  std::set<double> values(positions.col(0).data(), positions.col(0).data() + t);
  if (values.size() < 2 || static_cast<Eigen::Index>(values.size()) * 2 > t) return {};
  std::map<double, int> id;
  for (double v : values) id.emplace(v, static_cast<int>(id.size()));
  std::vector<int> labels(static_cast<std::size_t>(t));
  for (Eigen::Index i = 0; i < t; ++i) labels[static_cast<std::size_t>(i)] = id[positions(i, 0)];
  return labels;
}

// The two halves of axis 0 split at its median: the last resort, when the data offer nothing better.
std::vector<int> halves(const Eigen::MatrixXd& positions) {
  const Eigen::Index t = positions.rows();
  std::vector<double> x(positions.col(0).data(), positions.col(0).data() + t);
  std::nth_element(x.begin(), x.begin() + t / 2, x.end());
  const double median = x[static_cast<std::size_t>(t / 2)];
  std::vector<int> labels(static_cast<std::size_t>(t));
  for (Eigen::Index i = 0; i < t; ++i) labels[static_cast<std::size_t>(i)] = positions(i, 0) < median ? 0 : 1;
  return labels;
}

// Communities for modularity, the most meaningful the data allow: the rows of a grid; the dataset's own labels
// (hemispheres of parcels, blocks of a block-model graph); the communities of the training split's functional
// connectivity (Newman's leading eigenvector); else the halves of axis 0.
std::pair<std::vector<int>, std::string> partition_of(const Eigen::MatrixXd& positions, const DatasetTruth& truth) {
  const Eigen::Index t = positions.rows();
  if (t < 4 || positions.cols() == 0) return {{}, "none"};
  if (auto rows = grid_rows(positions); !rows.empty()) return {rows, "rows (distinct values of axis 0)"};
  if (static_cast<Eigen::Index>(truth.partition.size()) == t) return {truth.partition, truth.partition_name};
  if (truth.fc.size() > 0) {
    auto fc = probe::leading_eigenvector_communities(truth.fc);
    const int count = *std::max_element(fc.begin(), fc.end()) + 1;
    if (count > 1)
      return {fc, std::to_string(count) + " communities of the functional connectivity of the " + truth.fc_split +
                      " split (leading eigenvector)"};
  }
  return {halves(positions), "halves of axis 0 (split at its median)"};
}

Eigen::MatrixXd permuted_both(const Eigen::MatrixXd& m, const std::vector<Eigen::Index>& order) {
  if (m.size() == 0) return m;
  Eigen::MatrixXd out(m.rows(), m.cols());
  for (Eigen::Index i = 0; i < m.rows(); ++i)
    for (Eigen::Index j = 0; j < m.cols(); ++j)
      out(i, j) = m(order[static_cast<std::size_t>(i)], order[static_cast<std::size_t>(j)]);
  return out;
}

void shuffle_truths(DatasetTruth& truth, int seed) {
  const Eigen::Index tokens = truth.distance.size() > 0 ? truth.distance.rows() : truth.hops.rows();
  if (tokens == 0 && truth.partition.empty()) return;
  const auto order = shuffled_order(tokens > 0 ? tokens : static_cast<Eigen::Index>(truth.partition.size()), seed);
  truth.distance = permuted_both(truth.distance, order);
  truth.hops = permuted_both(truth.hops, order);
  if (!truth.partition.empty()) {
    std::vector<int> p(truth.partition.size());
    for (std::size_t i = 0; i < p.size(); ++i) p[i] = truth.partition[static_cast<std::size_t>(order[i])];
    truth.partition = p;
  }
}

// Spearman between the upper triangles of two T x T matrices, NaN pairs left out.
double upper_spearman(const Eigen::MatrixXd& a, const Eigen::MatrixXd& b) {
  std::vector<double> x, y;
  for (Eigen::Index i = 0; i < a.rows(); ++i)
    for (Eigen::Index j = i + 1; j < a.cols(); ++j)
      if (std::isfinite(a(i, j)) && std::isfinite(b(i, j))) x.push_back(a(i, j)), y.push_back(b(i, j));
  if (x.size() < 3) return std::nan("");
  return probe::spearman(Eigen::Map<Eigen::VectorXd>(x.data(), static_cast<Eigen::Index>(x.size())),
                         Eigen::Map<Eigen::VectorXd>(y.data(), static_cast<Eigen::Index>(y.size())));
}

}  // namespace

// The permutation of the shuffled-positions control: token i takes the truths of token order[i].
std::vector<Eigen::Index> shuffled_order(Eigen::Index tokens, int seed) {
  std::vector<Eigen::Index> order(static_cast<std::size_t>(tokens));
  std::iota(order.begin(), order.end(), 0);
  std::mt19937_64 rng(static_cast<std::uint64_t>(seed));
  std::shuffle(order.begin(), order.end(), rng);
  return order;
}

Eigen::MatrixXd permuted_rows(const Eigen::MatrixXd& m, const std::vector<Eigen::Index>& order) {
  Eigen::MatrixXd out(m.rows(), m.cols());
  for (Eigen::Index i = 0; i < m.rows(); ++i) out.row(i) = m.row(order[static_cast<std::size_t>(i)]);
  return out;
}

ProbeSetup probe_setup(const RunFolder& run, const Eigen::MatrixXd& positions, const AnalyzeOptions& options) {
  ProbeSetup s;
  const Eigen::Index tokens = positions.rows();
  TruthRequest request;
  request.data = run.settings.data;
  request.tokens = tokens;
  if (run.settings.train_split) request.train_split = *run.settings.train_split;
  if (run.settings.input) request.input = *run.settings.input;
  s.truth = dataset_truth(request);
  if (options.shuffle_positions != 0) shuffle_truths(s.truth, options.shuffle_positions);
  auto [partition, partition_name] = partition_of(positions, s.truth);
  s.partition_name = partition_name;
  auto& po = s.options;
  po.true_distance = s.truth.distance;  // empty: euclidean distance of the positions
  po.rsa.pe_metric = probe::parse_metric(options.metric);
  po.knn.k = std::min<int>(options.knn_k, static_cast<int>(std::max<Eigen::Index>(1, tokens - 1)));
  po.mds_dims = options.mds_dims;
  po.decode.leave_one_out = tokens <= options.leave_one_out_below;
  po.partition = partition;
  probe::OracleOptions oo;
  oo.base = run.settings.pe_base;
  oo.coordinate_scale = run.settings.pe_coordinate_scale;
  const Eigen::Index d_model = run.settings.d_model;
  auto& c = s.context;
  c.positions = positions;
  c.oracle = probe::sinusoidal_oracle(positions, d_model, oo);
  c.true_distance = s.truth.distance.size() > 0 ? s.truth.distance : probe::pairwise_distance(positions);
  c.hops = s.truth.hops;
  c.fc = s.truth.fc;
  c.pe_metric = probe::parse_metric(options.metric);
  s.structure = task_structure(run, s.truth, c.true_distance);
  return s;
}

// How identifiable the positions are from the activity (a property of the dataset, the same for every run on it):
// the Spearman between the training split's pairwise correlation and the true distance (and graph hops), and the
// mean correlation of all pairs and of graph neighbours.
ordered_json identifiability(const ProbeSetup& s) {
  const auto& t = s.truth;
  ordered_json j;
  j["fc_distance_spearman"] = number(upper_spearman(t.fc, s.context.true_distance));
  j["fc_hops_spearman"] = number(t.hops.size() > 0 ? upper_spearman(t.fc, t.hops) : std::nan(""));
  double all = 0, near = 0;
  std::int64_t n_all = 0, n_near = 0;
  for (Eigen::Index i = 0; i < t.fc.rows(); ++i)
    for (Eigen::Index k = i + 1; k < t.fc.cols(); ++k) {
      if (!std::isfinite(t.fc(i, k))) continue;
      all += t.fc(i, k), ++n_all;
      if (t.hops.size() > 0 && t.hops(i, k) == 1) near += t.fc(i, k), ++n_near;
    }
  j["fc_mean"] = number(n_all ? all / static_cast<double>(n_all) : std::nan(""));
  j["fc_mean_neighbours"] = number(n_near ? near / static_cast<double>(n_near) : std::nan(""));
  return j;
}

ordered_json fc_summary(const ProbeSetup& s) {
  ordered_json j = {{"split", s.truth.fc_split},
                    {"what", "Pearson correlation of every two tokens' activity over all time points of the split"}};
  j.update(identifiability(s));
  j["matrix"] = matrix_json(s.truth.fc);
  return j;
}

// Every built-in and registered probe of one PE.
ordered_json probe_one(const Eigen::MatrixXd& pe, const ProbeSetup& s) {
  ordered_json p = probe_json(probe::probe_pe(pe, s.context.positions, s.options, &s.context.oracle));
  for (const auto* registered : probe::ProbeRegistry::instance().in_order())
    for (const auto& [name, value] : registered->fn(pe, s.context)) p[name] = number(value);
  return p;
}

}  // namespace loci::analysis
