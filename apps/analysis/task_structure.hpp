// What of the task itself a PE could mirror without mirroring the positions: the token the classification head
// reads (the LST's last token, which is also a grid corner) and how often each token is the target. The probes
// here give RSA without the readout token and a partial Mantel test with both regressed out
// (probe/partial_mantel.hpp), so that an effect of the readout's own row cannot pass for geometry.
#pragma once

#include <Eigen/Core>

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "apps/analysis/dataset_truth.hpp"
#include "apps/analysis/run_folder.hpp"

namespace loci::analysis {

struct TaskStructure {
  std::vector<Eigen::Index> readout;         // tokens the head reads alone: {T - 1} for last-token pooling, else {}
  std::vector<Eigen::MatrixXd> covariates;   // T x T pair covariates of the partial test
  std::vector<std::string> covariate_names;  // one per covariate, for analysis.json
};

TaskStructure task_structure(const RunFolder& run, const DatasetTruth& truth, const Eigen::MatrixXd& true_distance);

// rsa_no_readout_spearman / _p_value (absent without a readout token) and partial_rsa_spearman / _p_value (absent
// without covariates) of one evaluation's PE distances, one matrix per block, tested jointly as RSA is.
nlohmann::ordered_json structure_probes(const std::vector<Eigen::MatrixXd>& pe_distances,
                                        const Eigen::MatrixXd& true_distance, const TaskStructure& structure);

}  // namespace loci::analysis
