#include "apps/analysis/pe_evaluations.hpp"

#include <cmath>

#include "apps/analysis/analysis_json.hpp"
#include "apps/analysis/analyze_run.hpp"
#include "apps/analysis/attention_term.hpp"
#include "apps/analysis/onset.hpp"
#include "apps/analysis/pe_tables.hpp"
#include "probe/permutation.hpp"

namespace loci::analysis {

namespace fs = std::filesystem;
using nlohmann::ordered_json;

namespace {

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

}  // namespace

// Each PE table's distance matrix at evaluation e.
std::vector<Eigen::MatrixXd> pe_distances(const PeTables& tables, std::int64_t e, const fs::path& file,
                                          const ProbeSetup& s) {
  std::vector<Eigen::MatrixXd> out;
  for (const auto& [index, array] : tables)
    out.push_back(probe::pairwise_distance(slice(*array, e, file, "placement"), s.context.pe_metric));
  return out;
}

// One row per evaluation: each placement's probes and their mean, and (when pe.h5 starts at epoch 0) the mean
// probes of the displacement from the initial PE.
ordered_json probe_evaluations(const RunFolder& run, const PeTables& tables, const ProbeSetup& s) {
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

}  // namespace loci::analysis
