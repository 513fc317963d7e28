#include "apps/analysis/analyze_run.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <fstream>
#include <map>
#include <numeric>
#include <optional>
#include <random>
#include <set>
#include <sstream>
#include <variant>

#include "apps/analysis/attention_term.hpp"
#include "apps/analysis/dataset_truth.hpp"
#include "apps/analysis/onset.hpp"
#include "apps/analysis/run_extras.hpp"
#include "apps/analysis/task_structure.hpp"
#include "datasets/checksum.hpp"
#include "datasets/error.hpp"
#include "probe/communities.hpp"
#include "probe/correlation.hpp"
#include "probe/displacement.hpp"
#include "probe/oracle.hpp"
#include "probe/permutation.hpp"
#include "probe/probe.hpp"
#include "probe/registry.hpp"
#include "probe/rsa.hpp"

namespace loci::analysis {

namespace fs = std::filesystem;
using nlohmann::ordered_json;

namespace {

// NaN and infinities are not JSON: an undefined number is null.
ordered_json number(double v) { return std::isfinite(v) ? ordered_json(v) : ordered_json(nullptr); }

ordered_json matrix_json(const Eigen::MatrixXd& m) {
  ordered_json rows = ordered_json::array();
  for (Eigen::Index i = 0; i < m.rows(); ++i) {
    ordered_json row = ordered_json::array();
    for (Eigen::Index j = 0; j < m.cols(); ++j) row.push_back(number(m(i, j)));
    rows.push_back(std::move(row));
  }
  return rows;
}

Eigen::MatrixXd slice(const datasets::NumericArray& a, std::int64_t index, const fs::path& file,
                      const std::string& name) {
  if (a.shape.size() != 3) throw datasets::DataError(file, "array '" + name + "' is not [evaluation, token, dim]");
  const auto rows = a.shape[1], cols = a.shape[2];
  Eigen::MatrixXd m(rows, cols);
  const double* p = a.values.data() + index * rows * cols;
  for (Eigen::Index i = 0; i < rows; ++i)
    for (Eigen::Index j = 0; j < cols; ++j) m(i, j) = p[i * cols + j];
  // A diverged or damaged table: no probe means anything on it (and an eigendecomposition would fail inside).
  if (!m.allFinite())
    throw datasets::DataError(file, "array '" + name + "' holds NaN or infinite values at evaluation " +
                                        std::to_string(index) + " (a diverged run, or a damaged file)");
  return m;
}

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

ordered_json probe_json(const probe::ProbeReport& r) {
  ordered_json j;
  for (const auto& [name, value] : probe::to_pairs(r)) j[name] = number(value);
  return j;
}

// Mean of every numeric field over the placements (one PE per block); fields null in any placement stay null.
ordered_json mean_over(const ordered_json& placements) {
  ordered_json mean;
  if (placements.empty()) return mean;
  for (const auto& [key, first] : placements.front().items()) {
    if (key == "placement") continue;
    double sum = 0;
    bool defined = true;
    for (const auto& p : placements) {
      if (!p.contains(key) || !p[key].is_number()) {
        defined = false;
        break;
      }
      sum += p[key].get<double>();
    }
    mean[key] = defined ? ordered_json(sum / static_cast<double>(placements.size())) : ordered_json(nullptr);
  }
  return mean;
}

ordered_json metric_history(const RunFolder& run) {
  ordered_json curves = ordered_json::array();
  for (const auto& m : run.metrics) {
    ordered_json row;
    for (const char* key : {"epoch", "step", "split", "loss", "accuracy", "mse", "r2_token_mean"})
      if (m.contains(key) && !m[key].is_null()) row[key] = m[key];
    curves.push_back(std::move(row));
  }
  return curves;
}

// The last evaluation's row of each split.
ordered_json final_metrics(const RunFolder& run) {
  ordered_json out = ordered_json::object();
  for (const auto& m : run.metrics) {
    if (!m.contains("split")) continue;
    ordered_json row;
    for (const auto& [key, value] : m.items())
      if (key != "split" && key != "seconds" && key != "lr" && !value.is_null()) row[key] = value;
    out[m["split"].get<std::string>()] = std::move(row);
  }
  return out;
}

std::map<std::string, std::string> input_hashes(const fs::path& folder) {
  // interventions.json (loci intervene) is optional: "" while absent, so that writing it makes the analysis stale.
  const fs::path interventions = folder / "interventions.json";
  return {{"pe.h5", datasets::sha256_file(folder / "pe.h5")},
          {"metrics.jsonl", datasets::sha256_file(folder / "metrics.jsonl")},
          {"interventions.json", fs::is_regular_file(interventions) ? datasets::sha256_file(interventions) : ""}};
}

}  // namespace

ordered_json options_json(const AnalyzeOptions& o) {
  // The registered probes are part of what computed an analysis: a probe added or changed (in loci or an extension
  // library, which bumps its version) makes every kept analysis.json stale, instead of leaving its column NaN.
  ordered_json probes = ordered_json::array();
  for (const auto* p : probe::ProbeRegistry::instance().in_order()) {
    std::string outputs;
    for (const auto& out : p->outputs) outputs += (outputs.empty() ? "" : ",") + out;
    probes.push_back(p->name + "@" + std::to_string(p->version) + ":" + outputs);
  }
  return {{"pe_metric", o.metric},
          {"knn_k", o.knn_k},
          {"mds_dims", o.mds_dims},
          {"leave_one_out_below", o.leave_one_out_below},
          {"shuffle_positions", o.shuffle_positions},
          {"probes", probes}};
}

namespace {

// The most tokens a generator makes (parcels.count's bound): the probes hold several tokens x tokens matrices, so a
// tampered pe.h5 of 10^6 positions would ask for terabytes.
constexpr std::int64_t kMaxProbeTokens = 20000;

Eigen::MatrixXd positions_of(const RunFolder& run) {
  const auto pos_it = run.pe.arrays.find("positions");
  if (pos_it == run.pe.arrays.end() || pos_it->second.shape.size() != 2)
    throw datasets::DataError(run.folder / "pe.h5", "has no [token, axis] array 'positions'");
  const auto& pos = pos_it->second;
  if (pos.shape[0] > kMaxProbeTokens)
    throw datasets::DataError(run.folder / "pe.h5", "'positions' holds " + std::to_string(pos.shape[0]) +
                                                        " tokens; the probes compare every pair of tokens and take at "
                                                        "most " +
                                                        std::to_string(kMaxProbeTokens));
  Eigen::MatrixXd positions(pos.shape[0], pos.shape[1]);
  for (Eigen::Index i = 0; i < positions.rows(); ++i)
    for (Eigen::Index j = 0; j < positions.cols(); ++j) positions(i, j) = pos.values[i * positions.cols() + j];
  return positions;
}

std::vector<std::int64_t> integers_of(const RunFolder& run, const char* name) {
  std::vector<std::int64_t> out;
  if (auto a = run.pe.arrays.find(name); a != run.pe.arrays.end())
    for (double v : a->second.values) out.push_back(static_cast<std::int64_t>(v));
  return out;
}

// The PE tables: placement_<p> arrays shaped [evaluation, token, dim]; attention-bias tables are left out.
std::vector<std::pair<int, const datasets::NumericArray*>> tables_of(const RunFolder& run, Eigen::Index tokens) {
  std::vector<std::pair<int, const datasets::NumericArray*>> tables;
  for (const auto& [name, array] : run.pe.arrays)
    if (name.rfind("placement_", 0) == 0 && array.shape.size() == 3 && array.shape[1] == tokens &&
        (array.dims.empty() || array.dims == "evaluation,token,dim"))
      tables.emplace_back(std::stoi(name.substr(10)), &array);
  std::sort(tables.begin(), tables.end());
  return tables;
}

// Everything the probes compare a PE with, and how.
struct ProbeSetup {
  probe::ProbeOptions options;
  probe::ProbeContext context;
  DatasetTruth truth;
  std::string partition_name;
  TaskStructure structure;  // the readout token and target frequencies, for the probes that see through them
};

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

ProbeSetup probe_setup(const RunFolder& run, const Eigen::MatrixXd& positions, const AnalyzeOptions& options) {
  ProbeSetup s;
  const Eigen::Index tokens = positions.rows();
  TruthRequest request;
  request.data = run.config.at("data").text();
  request.tokens = tokens;
  if (const auto* split = run.config.find_path("task.train_split")) request.train_split = split->text();
  if (const auto* input = run.config.find_path("task.input")) request.input = input->text();
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
  oo.base = run.config.at("model.pe.base").as_double();
  oo.coordinate_scale = run.config.at("model.pe.coordinate_scale").as_double();
  const Eigen::Index d_model = run.config.at("model.d_model").as_int();
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

// The task as the trainer resolved it against the dataset (summary.json), so that a reader needs no YAML and no rules
// of the trainer's. A run without that record (unfinished, or from an older loci) gives its config's type and the
// classes it names, or the LST grid's N when it names 0 (the trainer's rule then); null where nothing says.
ordered_json task_json(const RunFolder& run, const DatasetTruth& truth) {
  if (run.summary.is_object() && run.summary.contains("task")) return run.summary.at("task");
  const auto* type_node = run.config.find_path("task.type");
  const auto* classes = run.config.find_path("task.classes");
  const std::int64_t configured = classes ? classes->as_int() : 0;
  ordered_json j = {{"type", type_node ? type_node->text() : "unknown"}, {"classes", nullptr}};
  if (configured > 0)
    j["classes"] = configured;
  else if (truth.grid_n > 0)
    j["classes"] = truth.grid_n;
  return j;
}

// A run restored from a bundle (bench/bundles/restore_runs.py) keeps only its first and last evaluations of the PE
// (pe.h5's attribute abridged_history says so): its onset cannot be measured from them, and is null, not the last
// epoch.
std::optional<std::string> abridged_history(const RunFolder& run) {
  const auto it = run.pe.attributes.find("abridged_history");
  if (it == run.pe.attributes.end() || !std::holds_alternative<std::string>(it->second)) return std::nullopt;
  return std::get<std::string>(it->second);
}

// Which random draw the run's PE tables came from, so that the summary can pair runs sharing one: summary.json's
// pe_draw (the trainer's effective draw seed), else what model.pe.draw says (absent or "seed": the run's seed; a
// number: that seed's draw; "run": a draw of its own).
ordered_json pe_draw_of(const RunFolder& run) {
  if (run.summary.is_object() && run.summary.contains("pe_draw") && run.summary["pe_draw"].is_number_unsigned())
    return run.summary["pe_draw"];
  const auto* draw = run.config.find_path("model.pe.draw");
  const std::string mode = draw ? draw->text() : "seed";
  if (mode == "seed") return run.identity.seed;
  if (mode == "run") return "own draw of " + run.folder.string();
  return mode;
}

// What the analysis is of: the run, its final metrics and curves, and the truths it was scored against.
ordered_json describe_run(const RunFolder& run, const AnalyzeOptions& options, const ProbeSetup& s) {
  ordered_json out;
  out["loci_analysis"] = kAnalysisVersion;
  out["options"] = options_json(options);
  ordered_json inputs;
  for (const auto& [file, hash] : input_hashes(run.folder)) inputs[file] = hash;
  out["inputs"] = inputs;
  const RunIdentity& id = run.identity;
  out["run"] = {{"folder", run.folder.string()},
                {"group", id.group()},
                {"pe_type", id.pe_type},
                {"placement", id.placement},
                {"init", id.init},
                {"sigma", id.sigma},
                {"drawn", id.drawn},
                {"seed", id.seed},
                {"pe_draw", pe_draw_of(run)},
                {"data", run.config.at("data").text()}};
  if (const auto abridged = abridged_history(run)) out["run"]["abridged_history"] = *abridged;
  out["metrics"] = final_metrics(run);
  out["curves"] = metric_history(run);
  out["robustness"] = robustness_of(run);
  out["interventions"] = interventions_of(run);
  out["dataset"] = {{"folder", run.config.at("data").text()},
                    {"generator", s.truth.generator.empty() ? ordered_json(nullptr) : ordered_json(s.truth.generator)}};
  out["task"] = task_json(run, s.truth);
  out["tokens"] = s.context.positions.rows();
  out["positions"] = matrix_json(s.context.positions);
  out["partition"] = s.partition_name;
  out["true_distance_source"] =
      s.truth.distance.size() > 0 ? "the dataset's /distance" : "euclidean distance between the positions";
  if (!s.truth.note.empty()) out["dataset_note"] = s.truth.note;
  if (s.truth.fc.size() > 0) out["functional_connectivity"] = fc_summary(s);
  if (!s.structure.readout.empty()) out["readout_tokens"] = s.structure.readout;
  out["partial_rsa_covariates"] = s.structure.covariate_names;
  out["oracle"] = "sinusoids of the true positions, d_model columns split over the axes (probe/oracle.hpp)";
  return out;
}

// Every built-in and registered probe of one PE.
// A seed of this run's own for its independent-draw control: its training seed and sigma, so that two runs of one
// seed and different sigmas draw differently.
std::uint64_t draw_control_seed(const RunFolder& run) {
  std::uint64_t bits = 0;
  const double sigma = run.identity.sigma;
  std::memcpy(&bits, &sigma, sizeof bits);
  return static_cast<std::uint64_t>(run.identity.seed) * 0x9E3779B97F4A7C15ULL ^ bits ^ 0xD1B54A32D192ED03ULL;
}

ordered_json probe_one(const Eigen::MatrixXd& pe, const ProbeSetup& s) {
  ordered_json p = probe_json(probe::probe_pe(pe, s.context.positions, s.options, &s.context.oracle));
  for (const auto* registered : probe::ProbeRegistry::instance().in_order())
    for (const auto& [name, value] : registered->fn(pe, s.context)) p[name] = number(value);
  return p;
}

ordered_json only(const ordered_json& probes, const std::vector<std::string>& names) {
  ordered_json out;
  for (const auto& n : names) out[n] = probes.contains(n) ? probes[n] : ordered_json(nullptr);
  return out;
}

// One row per evaluation: each placement's probes and their mean, and (when pe.h5 starts at epoch 0) the mean
// probes of the displacement from the initial PE.
// Each PE table's distance matrix at evaluation e.
std::vector<Eigen::MatrixXd> pe_distances(const std::vector<std::pair<int, const datasets::NumericArray*>>& tables,
                                          std::int64_t e, const fs::path& file, const ProbeSetup& s) {
  std::vector<Eigen::MatrixXd> out;
  for (const auto& [index, array] : tables)
    out.push_back(probe::pairwise_distance(slice(*array, e, file, "placement"), s.context.pe_metric));
  return out;
}

// <name>_p_value and the null's mean and 95th percentile of a joint Mantel test of `dissimilarities` against the
// true distance (1000 permutations); <name>_spearman too when `into` has none (the attention term).
void add_permutation_test(ordered_json& into, const std::string& name,
                          const std::vector<Eigen::MatrixXd>& dissimilarities, const ProbeSetup& s) {
  if (dissimilarities.empty()) return;
  const probe::MantelResult m = probe::mantel_test(dissimilarities, s.context.true_distance, 1000, 0);
  if (!into.contains(name + "_spearman")) into[name + "_spearman"] = number(m.observed);
  into[name + "_p_value"] = number(m.p_value);
  into[name + "_null_mean"] = number(m.null_mean);
  into[name + "_null_q95"] = number(m.null_q95);
}

ordered_json probe_evaluations(const RunFolder& run,
                               const std::vector<std::pair<int, const datasets::NumericArray*>>& tables,
                               const ProbeSetup& s) {
  const LogitArrays logits = position_logit_arrays(run, s.context.positions.rows());
  const auto epochs = integers_of(run, "epoch"), steps = integers_of(run, "step");
  const fs::path file = run.folder / "pe.h5";
  ordered_json evaluations = ordered_json::array();
  const std::int64_t evals = tables.empty() ? 0 : tables.front().second->shape[0];
  const bool has_initial = evals > 0 && !epochs.empty() && epochs.front() == 0;
  for (std::int64_t e = 0; e < evals; ++e) {
    ordered_json per = ordered_json::array(), moved = ordered_json::array();
    for (const auto& [index, array] : tables) {
      const std::string name = "placement_" + std::to_string(index);
      const Eigen::MatrixXd pe = slice(*array, e, file, name);
      ordered_json p = {{"placement", index}};
      p.update(probe_one(pe, s));
      per.push_back(std::move(p));
      // A fixed PE has no displacement: nothing to probe, rather than the probes of a matrix of zeros.
      const Eigen::MatrixXd displacement = has_initial && e > 0 ? pe - slice(*array, 0, file, name) : Eigen::MatrixXd();
      if (displacement.size() > 0 && displacement.norm() > 0)
        moved.push_back(only(probe_one(displacement, s), baseline_probes()));
    }
    ordered_json row;
    row["epoch"] = e < static_cast<std::int64_t>(epochs.size()) ? epochs[e] : e;
    row["step"] = e < static_cast<std::int64_t>(steps.size()) ? steps[e] : 0;
    row["mean"] = mean_over(per);
    add_permutation_test(row["mean"], "rsa", pe_distances(tables, e, file, s), s);
    if (!moved.empty()) row["displacement"] = mean_over(moved);
    row["placements"] = std::move(per);
    if (!logits.empty()) {
      ordered_json term;
      add_permutation_test(term, "rsa", attention_term_dissimilarities(logits, e), s);
      row["attention_term"] = std::move(term);
    }
    evaluations.push_back(std::move(row));
  }
  return evaluations;
}

// The first evaluation where `statistic` of `section` (mean, attention_term) leaves its epoch-0 value (onset.hpp).
// Each evaluation's point of `statistic` in `section` ("mean" or "attention_term"); empty when one lacks it.
std::vector<OnsetPoint> onset_points(const ordered_json& evaluations, const char* section,
                                     const std::string& statistic) {
  std::vector<OnsetPoint> points;
  for (const auto& row : evaluations) {
    if (!row.contains(section)) return {};
    const auto& r = row[section];
    auto get = [&](const std::string& k) {
      return r.contains(k) && r[k].is_number() ? r[k].get<double>() : std::nan("");
    };
    points.push_back({row["epoch"].get<std::int64_t>(), get(statistic + "_spearman"), get(statistic + "_p_value"),
                      get(statistic + "_null_mean"), get(statistic + "_null_q95")});
  }
  return points;
}

ordered_json onset_of(const ordered_json& evaluations, const char* section, const std::string& statistic) {
  const auto onset = onset_epoch(onset_points(evaluations, section, statistic));
  return onset ? ordered_json(*onset) : ordered_json(nullptr);
}

// Whether the last evaluation took the shape (onset.hpp's one definition); null without an epoch-0 baseline.
ordered_json took_shape_at_end(const ordered_json& evaluations, const char* section, const std::string& statistic) {
  const auto points = onset_points(evaluations, section, statistic);
  if (points.size() < 2 || points.front().epoch != 0) return nullptr;
  return took_shape(points.back(), points.front().value);
}

// The PE's mean row norm over the mean norm of the embedded tokens it is added to (metrics' embedding_norm) at the
// last evaluation: the relative scale of the PE, which sigma alone does not give (the embedding's scale is the
// model's own). Null for runs that did not record the embedding's norm.
ordered_json relative_scale(const RunFolder& run, const ordered_json& final_probes, const ProbeSetup& s) {
  double embedding = std::nan("");
  for (const auto& m : run.metrics)
    if (m.contains("embedding_norm") && m["embedding_norm"].is_number()) embedding = m["embedding_norm"].get<double>();
  if (!final_probes.contains("norm_frobenius") || !final_probes["norm_frobenius"].is_number()) return nullptr;
  const double row =
      final_probes["norm_frobenius"].get<double>() / std::sqrt(static_cast<double>(s.context.positions.rows()));
  return number(embedding > 0 ? row / embedding : std::nan(""));
}

// The untrained control of independent draws: for a PE drawn N(0, sigma^2), the baseline probes on fresh tables of
// the same shape and sigma, drawn from a generator of this run's own (its seed and sigma), as the mean over its
// placements. Its correlation with the task across runs is what the PE's scale alone gives (statistics.cpp), free
// of the shared draw that makes the epoch-0 PEs of one seed the same table rescaled. Null for other inits.
ordered_json independent_draw_probes(const RunFolder& run,
                                     const std::vector<std::pair<int, const datasets::NumericArray*>>& tables,
                                     const ProbeSetup& s) {
  const std::string& init = run.identity.init;
  if (!run.identity.drawn || tables.empty() || !(init.rfind("normal(", 0) == 0)) return nullptr;
  std::mt19937_64 rng(draw_control_seed(run));
  std::normal_distribution<double> normal(0.0, run.identity.sigma);
  ordered_json per = ordered_json::array();
  for (const auto& [index, array] : tables) {
    Eigen::MatrixXd draw(array->shape[1], array->shape[2]);
    for (Eigen::Index k = 0; k < draw.size(); ++k) draw.data()[k] = normal(rng);
    per.push_back(only(probe_one(draw, s), baseline_probes()));
  }
  return mean_over(per);
}

// The displacement account at the last evaluation (probe/displacement.hpp), as the mean over the PE's placements:
// ||dP|| / ||P(0)|| and the RSA that dP predicts on any draw of P(0)'s size, beside the trained PE's own RSA. Null
// without an epoch-0 PE or for a PE that never moved (a fixed one).
ordered_json displacement_account_of(const RunFolder& run, const ordered_json& evaluations,
                                     const std::vector<std::pair<int, const datasets::NumericArray*>>& tables,
                                     const ProbeSetup& s) {
  ordered_json none = {{"disp_norm_ratio", nullptr},
                       {"disp_predicted_rsa", nullptr},
                       {"disp_predicted_rsa_sd", nullptr},
                       {"disp_kept_draw", nullptr}};
  if (tables.empty() || evaluations.size() < 2 || evaluations.front()["epoch"].get<std::int64_t>() != 0) return none;
  const std::int64_t last = static_cast<std::int64_t>(evaluations.size()) - 1;
  const fs::path file = run.folder / "pe.h5";
  double ratio = 0, predicted = 0, spread = 0, kept = 0;
  int moved = 0;
  for (const auto& [index, array] : tables) {
    const Eigen::MatrixXd initial = slice(*array, 0, file, "placement"),
                          trained = slice(*array, last, file, "placement");
    if ((trained - initial).norm() == 0) continue;
    const auto a = probe::displacement_account(initial, trained, s.context.true_distance, s.context.pe_metric,
                                               draw_control_seed(run) + static_cast<std::uint64_t>(index));
    ratio += a.norm_ratio, predicted += a.predicted_rsa, spread += a.predicted_rsa_sd, kept += a.kept_draw, ++moved;
  }
  if (moved == 0) return none;
  return {{"disp_norm_ratio", number(ratio / moved)},
          {"disp_predicted_rsa", number(predicted / moved)},
          {"disp_predicted_rsa_sd", number(spread / moved)},
          {"disp_kept_draw", number(kept / moved)}};
}

// The last evaluation's probes, with their controls beside them: the same probes at initialisation (init_*) and
// on the displacement (disp_*), and the permutation p-value of the RSA (rsa_p_value: the true positions shuffled
// among the tokens, 1000 times, every block's PE scored against each shuffle).
ordered_json final_probes(const RunFolder& run, const ordered_json& evaluations,
                          const std::vector<std::pair<int, const datasets::NumericArray*>>& tables,
                          const ProbeSetup& s) {
  if (evaluations.empty()) return nullptr;
  ordered_json f = evaluations.back()["mean"];
  const bool has_initial = evaluations.front()["epoch"].get<std::int64_t>() == 0;
  const ordered_json drawn = independent_draw_probes(run, tables, s);
  for (const auto& n : baseline_probes()) {
    f["draw_" + n] = drawn.is_object() && drawn.contains(n) ? drawn[n] : ordered_json(nullptr);
    f["init_" + n] = has_initial ? only(evaluations.front()["mean"], {n})[n] : ordered_json(nullptr);
    const auto& last = evaluations.back();
    f["disp_" + n] = last.contains("displacement") ? only(last["displacement"], {n})[n] : ordered_json(nullptr);
  }
  std::vector<Eigen::MatrixXd> distances;
  const std::int64_t last = static_cast<std::int64_t>(evaluations.size()) - 1;
  for (const auto& [index, array] : tables)
    distances.push_back(
        probe::pairwise_distance(slice(*array, last, run.folder / "pe.h5", "placement"), s.context.pe_metric));
  const probe::MantelResult m = probe::mantel_test(distances, s.context.true_distance, 1000, 0);
  f["rsa_p_value"] = number(m.p_value);
  // The task's structure taken out, at the end and at initialisation.
  f.update(structure_probes(distances, s.context.true_distance, s.structure));
  if (has_initial) {
    const ordered_json initial =
        structure_probes(pe_distances(tables, 0, run.folder / "pe.h5", s), s.context.true_distance, s.structure);
    for (const auto& [key, value] : initial.items()) f["init_" + key] = value;
  }
  const bool whole_history = !abridged_history(run);
  f["rsa_onset_epoch"] = whole_history ? onset_of(evaluations, "mean", "rsa") : ordered_json(nullptr);
  f["rsa_took_shape"] = took_shape_at_end(evaluations, "mean", "rsa");
  f["pe_to_embedding_norm"] = relative_scale(run, f, s);
  f.update(displacement_account_of(run, evaluations, tables, s));
  if (evaluations.back().contains("attention_term")) {
    const auto& term = evaluations.back()["attention_term"];
    f["qk_rsa_spearman"] = term["rsa_spearman"];
    f["qk_rsa_p_value"] = term["rsa_p_value"];
    f["init_qk_rsa_spearman"] = has_initial && evaluations.front().contains("attention_term")
                                    ? evaluations.front()["attention_term"]["rsa_spearman"]
                                    : ordered_json(nullptr);
    f["qk_rsa_onset_epoch"] = whole_history ? onset_of(evaluations, "attention_term", "rsa") : ordered_json(nullptr);
    f["qk_rsa_took_shape"] = took_shape_at_end(evaluations, "attention_term", "rsa");
  }
  if (s.truth.fc.size() > 0) {
    const ordered_json data = identifiability(s);
    for (const auto& [key, value] : data.items()) f["data_" + key] = value;
  }
  return f;
}

// For the report's figures: the last evaluation's PE of the first placement as an MDS embedding and as a
// cosine-similarity matrix, beside the true distances.
void add_final_views(ordered_json& out, const RunFolder& run,
                     const std::vector<std::pair<int, const datasets::NumericArray*>>& tables, const ProbeSetup& s) {
  out["true_distance"] = matrix_json(s.context.true_distance);
  const std::int64_t evals = tables.empty() ? 0 : tables.front().second->shape[0];
  if (evals == 0) {
    out["note"] = "the PE of type '" + run.identity.pe_type + "' has no [token, dim] table to probe";
    return;
  }
  const Eigen::Index tokens = s.context.positions.rows();
  const Eigen::MatrixXd pe = slice(*tables.front().second, evals - 1, run.folder / "pe.h5", "placement");
  const probe::ProbeReport r = probe::probe_pe(pe, s.context.positions, s.options, &s.context.oracle);
  out["final_mds"] = matrix_json(r.mds);
  // Centred over tokens first: a fixed sinusoid's slow dimensions are nearly constant and would make every pair
  // look alike under plain cosine similarity.
  const Eigen::MatrixXd centred = pe.rowwise() - pe.colwise().mean();
  out["final_similarity"] =
      matrix_json((Eigen::MatrixXd::Ones(tokens, tokens) - probe::pairwise_distance(centred, probe::Metric::cosine)));
}

}  // namespace

// The probes that also run on the PE at initialisation (epoch 0) and on the displacement PE(t) - PE(0): at the
// paper's learning rate a small-sigma PE that generalises keeps most of its random draw, so the raw PE's probes
// alone say little (bench/RESULTS.md); the displacement shows what training wrote into it.
const std::vector<std::string>& baseline_probes() {
  static const std::vector<std::string> names{"rsa_spearman",
                                              "rsa_manhattan_spearman",
                                              "rsa_same_line_spearman",
                                              "rsa_hops_spearman",
                                              "rsa_fc_spearman",
                                              "procrustes_oracle_disparity",
                                              "procrustes_oracle_residual",
                                              "decode_r2",
                                              "knn_overlap",
                                              "norm_frobenius"};
  return names;
}

ordered_json analyze_run(const RunFolder& run, const AnalyzeOptions& options) {
  const Eigen::MatrixXd positions =
      options.shuffle_positions != 0
          ? permuted_rows(positions_of(run), shuffled_order(positions_of(run).rows(), options.shuffle_positions))
          : positions_of(run);
  const auto tables = tables_of(run, positions.rows());
  const ProbeSetup setup = probe_setup(run, positions, options);
  ordered_json out = describe_run(run, options, setup);
  out["evaluations"] = probe_evaluations(run, tables, setup);
  out["final"] = final_probes(run, out["evaluations"], tables, setup);
  add_final_views(out, run, tables, setup);
  return out;
}

bool analysis_is_current(const fs::path& folder, const AnalyzeOptions& options) {
  const auto text = run_file(folder, "analysis.json");
  if (!text) return false;
  try {
    const auto j = nlohmann::json::parse(*text);
    if (j.value("loci_analysis", 0) != kAnalysisVersion) return false;
    if (j.at("options") != nlohmann::json(options_json(options))) return false;
    for (const auto& [file, hash] : input_hashes(folder))
      if (j.at("inputs").value(file, "") != hash) return false;
    return true;
  } catch (const std::exception&) {
    return false;  // unreadable or foreign: recompute
  }
}

}  // namespace loci::analysis
