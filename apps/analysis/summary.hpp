// The summary of `loci analyze` across runs: one row per group (runs differing only in seed, and with
// pool_datasets in dataset), each number as mean and sample sd over the group's runs. Written as summary.csv
// (pandas-ready, <metric>_mean / <metric>_sd), runs.csv (one row per run) and summary.md (a table to read).
#pragma once

#include <filesystem>
#include <vector>

#include <nlohmann/json.hpp>

namespace loci::analysis {

// analyses: the analysis.json of each run. Files are written atomically into `folder`.
// `comparisons`: AnalyzeOptions::comparisons ("all" or "one_setting"); `pool_datasets`: AnalyzeOptions's, runs
// on different datasets grouped together.
void write_summary(const std::vector<nlohmann::ordered_json>& analyses, const std::filesystem::path& folder,
                   const std::string& comparisons = "all", bool pool_datasets = false);

}  // namespace loci::analysis
