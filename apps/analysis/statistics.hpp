// The statistics of a summary, across runs: every comparison of two groups (difference, 95% interval, effect size,
// a permutation test fitted to the design, Holm over the table), every correlation of a statistic with the task
// over runs (permutation p, bootstrap interval, beside the same correlation on the untrained PE), and onsets as
// censored data (Kaplan-Meier). Written as comparisons.csv, correlations.csv and onsets.csv, and as summary.md's
// tables. The maths lives in probe/stats/.
#pragma once

#include <filesystem>
#include <map>
#include <string>
#include <vector>

namespace loci::analysis {

// One run as the statistics see it: its group, what it shares with runs of other groups (runs with one pairing key
// share a PE draw and a dataset: probe/stats/compare.hpp pairs them), and its numbers.
struct RunRecord {
  std::string group;
  std::string pairing;  // "<dataset>|<pe draw>"
  bool drawn = false;   // its PE was drawn at some sigma (learned, random_fixed)
  std::map<std::string, double> values;
  std::map<std::string, std::string> settings;  // the settings that vary between the runs analysed, seed aside
  // Onsets (onset.hpp): the epoch at which the statistic took the shape, or none, and the last evaluation.
  std::map<std::string, double> onset;  // statistic -> epoch (absent: no onset)
  double last_epoch = 0;
};

// A run's value of `column`; NaN where it has none.
double value_of(const RunRecord& r, const std::string& column);

// Each returns the markdown summary.md shows and writes its csv into `folder`. `groups` in the summary's order.
// `metrics`: the columns two groups are compared on.
// `one_setting`: only pairs of groups whose settings differ in exactly one key (planned contrasts), else every pair.
std::string write_comparisons(const std::vector<std::string>& groups, const std::vector<RunRecord>& runs,
                              const std::vector<std::string>& metrics, const std::filesystem::path& folder,
                              bool one_setting = false);

// `statistics` of each drawn-PE run correlated with each of `task` (its accuracy or held-out MSE).
std::string write_correlations(const std::vector<RunRecord>& runs, const std::vector<std::string>& statistics,
                               const std::vector<std::string>& task, bool accuracy,
                               const std::filesystem::path& folder);

// For each onset statistic (rsa, qk_rsa) and group: the Kaplan-Meier fraction of runs with an onset by each epoch.
std::string write_onsets(const std::vector<std::string>& groups, const std::vector<RunRecord>& runs,
                         const std::filesystem::path& folder);

// The untrained control of a statistic: the same statistic on the PE at epoch 0 ("init_<name>"), on an
// independent fresh draw of the run's sigma ("draw_<name>"), and for the raw Procrustes residual a random PE of the
// same norm; empty where none is recorded.
std::vector<std::string> untrained_controls(const std::string& statistic);

}  // namespace loci::analysis
