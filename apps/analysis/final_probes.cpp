#include "apps/analysis/final_probes.hpp"

#include <cmath>
#include <cstring>
#include <random>

#include "apps/analysis/analysis_json.hpp"
#include "apps/analysis/analyze_run.hpp"
#include "apps/analysis/pe_evaluations.hpp"
#include "apps/analysis/pe_tables.hpp"
#include "apps/analysis/run_description.hpp"
#include "probe/displacement.hpp"
#include "probe/permutation.hpp"
#include "probe/probe.hpp"

namespace loci::analysis {

namespace fs = std::filesystem;
using nlohmann::ordered_json;

namespace {

// A seed of this run's own for its independent-draw control: its training seed and sigma, so that two runs of one
// seed and different sigmas draw differently.
std::uint64_t draw_control_seed(const RunFolder& run) {
  std::uint64_t bits = 0;
  const double sigma = run.identity.sigma;
  std::memcpy(&bits, &sigma, sizeof bits);
  return static_cast<std::uint64_t>(run.identity.seed) * 0x9E3779B97F4A7C15ULL ^ bits ^ 0xD1B54A32D192ED03ULL;
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
ordered_json independent_draw_probes(const RunFolder& run, const PeTables& tables, const ProbeSetup& s) {
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
ordered_json displacement_account_of(const RunFolder& run, const ordered_json& evaluations, const PeTables& tables,
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

}  // namespace

// The last evaluation's probes, with their controls beside them: the same probes at initialisation (init_*) and
// on the displacement (disp_*), and the permutation p-value of the RSA (rsa_p_value: the true positions shuffled
// among the tokens, 1000 times, every block's PE scored against each shuffle).
ordered_json final_probes(const RunFolder& run, const ordered_json& evaluations, const PeTables& tables,
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
void add_final_views(ordered_json& out, const RunFolder& run, const PeTables& tables, const ProbeSetup& s) {
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

}  // namespace loci::analysis
