#include "apps/analysis/analyze_all.hpp"

#include <fstream>

#include "apps/analysis/attention_similarity.hpp"
#include "apps/analysis/summary.hpp"
#include "core/error.hpp"
#include "datasets/atomic_file.hpp"
#include "datasets/error.hpp"
#include "datasets/progress.hpp"

namespace loci::analysis {

namespace fs = std::filesystem;

namespace {

std::string joined(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& i : items) out += (out.empty() ? "" : "; ") + i;
  return out;
}

}  // namespace

std::string unfinished_lines(const AnalyzeAllReport& report) {
  std::string out;
  if (!report.skipped.empty())
    out += "loci: left out " + std::to_string(report.skipped.size()) + " unfinished run" +
           (report.skipped.size() > 1 ? "s" : "") + " (analyze --include-partial, or analyze.include_partial, scores " +
           "them, marked partial): " + joined(report.skipped) + "\n";
  if (!report.partial.empty())
    out += "loci: scored " + std::to_string(report.partial.size()) + " unfinished run" +
           (report.partial.size() > 1 ? "s" : "") + " as partial, at their last evaluation: " + joined(report.partial) +
           "\n";
  return out;
}

AnalyzeAllReport analyze_all(const std::vector<fs::path>& roots, const fs::path& summary_folder,
                             const AnalyzeOptions& options, bool progress) {
  AnalyzeAllReport report;
  std::vector<fs::path> folders;
  std::vector<std::string> unfinished;  // per folder: why it has not finished, "" when it has
  for (const auto& folder : find_run_folders(roots)) {
    const RunProgress state = run_progress(folder);
    if (!state.finished && !options.include_partial) {
      report.skipped.push_back(folder.string() + " (" + state.why + ")");
      continue;
    }
    if (!state.finished) report.partial.push_back(folder.string() + " (" + state.why + ")");
    folders.push_back(folder);
    unfinished.push_back(state.why);
  }
  if (folders.empty())
    throw UserError("no finished run to analyse: " + std::to_string(report.skipped.size()) +
                    " runs have not finished (" + report.skipped.front() + (report.skipped.size() > 1 ? ", ..." : "") +
                    "); --include-partial (analyze.include_partial) scores them anyway");
  report.runs = static_cast<int>(folders.size());
  std::vector<nlohmann::ordered_json> analyses;
  datasets::Progress bar(
      datasets::ProgressOptions("analysing", static_cast<std::int64_t>(folders.size())).unit("runs").enabled(progress));
  for (std::size_t i = 0; i < folders.size(); ++i) {
    const fs::path& folder = folders[i];
    const fs::path file = folder / "analysis.json";
    if (unfinished[i].empty() && !options.force && analysis_is_current(folder, options)) {
      analyses.push_back(nlohmann::ordered_json::parse(run_file(folder, "analysis.json").value()));
      ++report.kept;
    } else {
      analyses.push_back(analyze_run(load_run_folder(folder), options));
      // A partial run's analysis says so, with how far it got, wherever it is read.
      if (!unfinished[i].empty()) analyses.back()["run"]["partial"] = unfinished[i];
      datasets::write_file_atomically(file, analyses.back().dump(1) + "\n");
      ++report.analysed;
    }
    bar.advance();
  }
  bar.finish();
  add_attention_similarity(folders, analyses, options.attention_reference);
  datasets::make_folder(summary_folder);
  write_summary(analyses, summary_folder, options.comparisons, options.pool_datasets);
  return report;
}

}  // namespace loci::analysis
