// The whole of `loci analyze RUN...`: every run found under the given folders gets its analysis.json (kept when it
// is current), then the summary across them is written to one folder.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "apps/analysis/analyze_run.hpp"

namespace loci::analysis {

struct AnalyzeAllReport {
  int runs = 0, analysed = 0, kept = 0;
  // Runs left out because they have not finished (without include_partial), or scored though unfinished (with
  // it): "<folder> (<why>)" each.
  std::vector<std::string> skipped, partial;
};

// What the command line says of unfinished runs: one line for those left out (and how to include them), one for
// those scored as partial; "" when every run had finished.
std::string unfinished_lines(const AnalyzeAllReport& report);

AnalyzeAllReport analyze_all(const std::vector<std::filesystem::path>& roots,
                             const std::filesystem::path& summary_folder, const AnalyzeOptions& options, bool progress);

}  // namespace loci::analysis
