#include "apps/analysis/task_structure.hpp"
#include "apps/analysis/analysis_json.hpp"

#include <cmath>

#include "probe/partial_mantel.hpp"
#include "probe/permutation.hpp"

namespace loci::analysis {

namespace {

// The task the trainer resolved (summary.json), else the config's; a dense objective reads every token.
bool reads_one_token(const RunFolder& run) {
  std::string task = run.settings.task_type.value_or("auto");
  if (run.summary.is_object() && run.summary.contains("task") && run.summary["task"].is_object() &&
      run.summary["task"].contains("type") && run.summary["task"]["type"].is_string())
    task = run.summary["task"]["type"].get<std::string>();
  return task != "masked_regression" && run.settings.task_objective.value_or("readout") == "readout" &&
         run.settings.pooling.value_or("last") == "last";
}

}  // namespace

TaskStructure task_structure(const RunFolder& run, const DatasetTruth& truth, const Eigen::MatrixXd& true_distance) {
  TaskStructure s;
  const Eigen::Index tokens = true_distance.rows();
  if (reads_one_token(run) && tokens > 1) {
    s.readout = {tokens - 1};
    const auto pairs = probe::pair_covariates(true_distance.col(tokens - 1));
    s.covariates.insert(s.covariates.end(), pairs.begin(), pairs.end());
    s.covariate_names.insert(s.covariate_names.end(), {"sum of the pair's true distances to the readout token",
                                                       "difference of the pair's true distances to the readout token"});
  }
  if (truth.target_frequency.size() == tokens) {
    const auto pairs = probe::pair_covariates(truth.target_frequency);
    s.covariates.insert(s.covariates.end(), pairs.begin(), pairs.end());
    s.covariate_names.insert(s.covariate_names.end(),
                             {"sum of the pair's target frequencies in " + truth.target_split,
                              "difference of the pair's target frequencies in " + truth.target_split});
  }
  return s;
}

nlohmann::ordered_json structure_probes(const std::vector<Eigen::MatrixXd>& pe_distances,
                                        const Eigen::MatrixXd& true_distance, const TaskStructure& structure) {
  nlohmann::ordered_json out = nlohmann::ordered_json::object();
  if (pe_distances.empty()) return out;
  if (!structure.readout.empty()) {
    std::vector<Eigen::MatrixXd> reduced;
    for (const auto& d : pe_distances) reduced.push_back(probe::without_tokens(d, structure.readout));
    const probe::MantelResult m =
        probe::mantel_test(reduced, probe::without_tokens(true_distance, structure.readout), 1000, 0);
    out["rsa_no_readout_spearman"] = number(m.observed);
    out["rsa_no_readout_p_value"] = number(m.p_value);
  }
  if (!structure.covariates.empty()) {
    const probe::PartialMantelResult p =
        probe::partial_mantel_test(pe_distances, true_distance, structure.covariates, 1000, 0);
    out["partial_rsa_spearman"] = number(p.observed);
    out["partial_rsa_p_value"] = number(p.p_value);
  }
  return out;
}

}  // namespace loci::analysis
