// `loci analyze RUN... [-o DIR]`: score every learned PE of the runs against their true positions (analysis.json in
// each run) and summarise across runs (summary.csv, summary.md, runs.csv in DIR).
#include <iostream>

#include "apps/analysis/analyze_all.hpp"
#include "apps/analysis/analyze_options.hpp"
#include "apps/commands.hpp"
#include "apps/option_flags.hpp"
#include "core/error.hpp"
#include "plugins/api/plugin_loader.hpp"

namespace loci::apps {

namespace fs = std::filesystem;

namespace {

// The deepest folder holding every root, so the summary of a sweep lands in the sweep's folder.
fs::path common_folder(const std::vector<fs::path>& roots) {
  fs::path common = fs::weakly_canonical(roots.front());
  for (const auto& r : roots) {
    const fs::path p = fs::weakly_canonical(r);
    fs::path shared;
    for (auto a = common.begin(), b = p.begin(); a != common.end() && b != p.end() && *a == *b; ++a, ++b) shared /= *a;
    common = shared;
  }
  return common;
}

}  // namespace

void add_analyze_command(CLI::App& app) {
  struct Args {
    std::vector<std::string> runs;
    std::string out;
    bool quiet = false;
    std::unique_ptr<OptionFlags> options;
  };
  auto a = std::make_shared<Args>();
  auto* cmd = app.add_subcommand(
      "analyze",
      "Score the learned positional encodings of runs against the true positions (analysis.json per run, "
      "summary.csv/.md across runs)");
  cmd->add_option("runs", a->runs, "Run folders, or folders holding runs (a sweep's `out`)")->required();
  cmd->add_option("-o,--out", a->out,
                  "Folder for summary.csv, summary.md, runs.csv (default: the folder holding every run)");
  a->options = std::make_unique<OptionFlags>(cmd, analysis::analyze_options().specs());
  cmd->add_flag("-q,--quiet", a->quiet, "No progress output");
  cmd->callback([a] {
    // Extensions on the plugin path may register probes of their own (probe/registry.hpp).
    static plugins::PluginRegistry registry;
    registry.scan(plugins::PluginRegistry::search_path());
    registry.load_extensions();
    analysis::AnalyzeOptions options;
    analysis::analyze_options().read(a->options->given(), options);
    std::vector<fs::path> roots(a->runs.begin(), a->runs.end());
    const fs::path out = a->out.empty() ? common_folder(roots) : fs::path(a->out);
    const auto report = analysis::analyze_all(roots, out, options, !a->quiet);
    std::cerr << analysis::unfinished_lines(report) << "loci: analysed " << report.analysed << " runs, kept "
              << report.kept << " current analyses; summary in " << (out / "summary.md").string() << "\n";
  });
}

}  // namespace loci::apps
