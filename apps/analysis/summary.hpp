// The summary of `loci analyze` across runs: one row per group (runs differing only in seed, and with
// pool_datasets in dataset), each number as mean and sample sd over the group's runs. Written as summary.csv
// (pandas-ready, <metric>_mean / <metric>_sd), runs.csv (one row per run) and summary.md (a table to read).
#pragma once

#include <filesystem>
#include <vector>

#include <nlohmann/json.hpp>

namespace loci::analysis {

// Which pairs of groups summary.md and comparisons.csv compare, Holm holding over that family: every pair, or only
// pairs that differ in exactly one setting (a factorial grid's planned contrasts: sigma within each learning rate,
// the learning rate within each sigma).
enum class Comparisons { all, one_setting };

// analyses: the analysis.json of each run. Files are written atomically into `folder`.
// `pool_datasets`: AnalyzeOptions's, runs on different datasets grouped together.
void write_summary(const std::vector<nlohmann::ordered_json>& analyses, const std::filesystem::path& folder,
                   Comparisons comparisons = Comparisons::all, bool pool_datasets = false);

}  // namespace loci::analysis
