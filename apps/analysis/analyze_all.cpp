#include "apps/analysis/analyze_all.hpp"

#include <fstream>

#include "apps/analysis/attention_similarity.hpp"
#include "apps/analysis/summary.hpp"
#include "datasets/atomic_file.hpp"
#include "datasets/error.hpp"
#include "datasets/progress.hpp"

namespace loci::analysis {

namespace fs = std::filesystem;

AnalyzeAllReport analyze_all(const std::vector<fs::path>& roots, const fs::path& summary_folder,
                             const AnalyzeOptions& options, bool progress) {
  const std::vector<fs::path> folders = find_run_folders(roots);
  AnalyzeAllReport report;
  report.runs = static_cast<int>(folders.size());
  std::vector<nlohmann::ordered_json> analyses;
  datasets::Progress bar(datasets::ProgressOptions("analysing", static_cast<std::int64_t>(folders.size())).unit("runs").enabled(progress));
  for (const auto& folder : folders) {
    const fs::path file = folder / "analysis.json";
    if (analysis_is_current(folder, options)) {
      std::ifstream in(file);
      analyses.push_back(nlohmann::ordered_json::parse(in));
      ++report.kept;
    } else {
      analyses.push_back(analyze_run(load_run_folder(folder), options));
      datasets::write_file_atomically(file, analyses.back().dump(1) + "\n");
      ++report.analysed;
    }
    bar.advance();
  }
  bar.finish();
  add_attention_similarity(folders, analyses, options.attention_reference);
  datasets::make_folder(summary_folder);
  write_summary(analyses, summary_folder);
  return report;
}

}  // namespace loci::analysis
