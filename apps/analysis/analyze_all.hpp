// The whole of `loci analyze RUN...`: every run found under the given folders gets its analysis.json (kept when it
// is current), then the summary across them is written to one folder.
#pragma once

#include <filesystem>
#include <vector>

#include "apps/analysis/analyze_run.hpp"

namespace loci::analysis {

struct AnalyzeAllReport {
  int runs = 0, analysed = 0, kept = 0;
};

AnalyzeAllReport analyze_all(const std::vector<std::filesystem::path>& roots, const std::filesystem::path& summary_folder,
                             const AnalyzeOptions& options, bool progress);

}  // namespace loci::analysis
