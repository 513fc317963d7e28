// Everything the probes compare a run's PE with: the dataset's truths (distances, hops, functional connectivity, a
// partition), the oracle PE, the task's structure, and the shuffled-positions control.
#pragma once

#include <string>
#include <vector>

#include <Eigen/Dense>
#include <nlohmann/json.hpp>

#include "apps/analysis/analyze_run.hpp"
#include "apps/analysis/dataset_truth.hpp"
#include "apps/analysis/run_folder.hpp"
#include "apps/analysis/task_structure.hpp"
#include "probe/probe.hpp"
#include "probe/registry.hpp"

namespace loci::analysis {

// Everything the probes compare a PE with, and how.
struct ProbeSetup {
  probe::ProbeOptions options;
  probe::ProbeContext context;
  DatasetTruth truth;
  std::string partition_name;
  TaskStructure structure;  // the readout token and target frequencies, for the probes that see through them
};

// The setup of `run`'s probes against `positions` (already shuffled under options.shuffle_positions).
ProbeSetup probe_setup(const RunFolder& run, const Eigen::MatrixXd& positions, const AnalyzeOptions& options);

// The permutation of the shuffled-positions control: token i takes the truths of token order[i].
std::vector<Eigen::Index> shuffled_order(Eigen::Index tokens, int seed);
Eigen::MatrixXd permuted_rows(const Eigen::MatrixXd& m, const std::vector<Eigen::Index>& order);

// Every built-in and registered probe of one PE.
nlohmann::ordered_json probe_one(const Eigen::MatrixXd& pe, const ProbeSetup& s);

// How identifiable the positions are from the activity (a property of the dataset, the same for every run on it).
nlohmann::ordered_json identifiability(const ProbeSetup& s);

// The functional connectivity's summary and matrix, for the report.
nlohmann::ordered_json fc_summary(const ProbeSetup& s);

}  // namespace loci::analysis
