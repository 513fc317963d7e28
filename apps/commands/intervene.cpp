// `loci intervene RUN... [--only NAMES] [--split S] [--permutations K] [--force]`: each finished run's model
// evaluated with its PE changed by every registered intervention (models/interventions/), into
// interventions.json / interventions.csv in the run; `loci analyze` then carries them into analysis.json and the
// summary. A run whose interventions are newer than its checkpoint is kept unless --force.
#include <chrono>
#include <iostream>
#include <sstream>

#include "apps/analysis/run_folder.hpp"
#include "apps/commands.hpp"
#include "apps/resolve.hpp"
#include "core/error.hpp"

namespace loci::apps {

namespace fs = std::filesystem;

namespace {

struct InterveneArgs {
  std::vector<std::string> runs, only, splits;
  std::int64_t permutations = 5;
  bool no_per_block = false, no_per_position = false, force = false, quiet = false;
  int threads = 0;
};

// Interventions already written after the checkpoint they were made from.
bool current(const fs::path& run) {
  std::error_code a, b;
  const auto written = fs::last_write_time(run / "interventions.json", a);
  const auto trained = fs::last_write_time(run / "checkpoints" / "last.pt", b);
  return !a && !b && written >= trained;
}

void intervene_one(const fs::path& run, const InterveneArgs& a) {
  plugins::PluginRegistry registry;
  const ResolvedConfig r = resolve_run(run, registry);
  plugins::InterveneRequest req;
  req.run = run;
  req.interventions = a.only;
  req.splits = a.splits;
  req.permutations = a.permutations;
  req.per_block = !a.no_per_block;
  req.per_position = !a.no_per_position;
  req.threads = a.threads;
  req.progress = !a.quiet;
  registry.make_trainer(r.plugin->name)->intervene(r.node, req);
}

}  // namespace

void add_intervene_command(CLI::App& app) {
  auto a = std::make_shared<InterveneArgs>();
  auto* cmd =
      app.add_subcommand("intervene",
                         "Evaluate finished runs with their PE changed (epoch-0 draw, displacement, permuted rows, a "
                         "symmetry of the positions, zero, rescaled, the oracle): interventions.json per run");
  cmd->add_option("runs", a->runs, "Run folders, or folders holding runs (a sweep's `out`)")->required();
  cmd->add_option("--only", a->only,
                  "Only these interventions (init, displacement, permute_random, "
                  "permute_symmetry, permute_matched, zero, rescale, oracle, or an extension's)")
      ->delimiter(',');
  cmd->add_option("--split", a->splits,
                  "Score these splits (repeatable; default: every evaluated split but the "
                  "training split)");
  cmd->add_option("--permutations", a->permutations,
                  "Random permutations of the rows (permute_random), and per symmetry (permute_matched)")
      ->check(CLI::Range(std::int64_t{1}, std::int64_t{1000}));
  cmd->add_flag("--no-per-block", a->no_per_block, "Only the whole model, not each block's PE alone");
  cmd->add_flag("--no-per-position", a->no_per_position, "Without each token's rows zeroed alone");
  cmd->add_option("--threads", a->threads, "Threads (default: the run's train.threads)")->check(CLI::PositiveNumber);
  cmd->add_flag("--force", a->force, "Score again runs whose interventions.json is newer than their checkpoint");
  cmd->add_flag("-q,--quiet", a->quiet, "No progress output");
  cmd->callback([a] {
    const auto runs = analysis::find_run_folders(std::vector<fs::path>(a->runs.begin(), a->runs.end()));
    std::size_t done = 0, kept = 0;
    for (std::size_t i = 0; i < runs.size(); ++i) {
      const std::string where = "[" + std::to_string(i + 1) + "/" + std::to_string(runs.size()) + "] ";
      if (!a->force && current(runs[i])) {
        ++kept;
        if (!a->quiet) std::cerr << "loci: " << where << "kept " << runs[i].string() << "\n";
        continue;
      }
      const auto start = std::chrono::steady_clock::now();
      intervene_one(runs[i], *a);
      ++done;
      if (!a->quiet)
        std::cerr << "loci: " << where << "done " << runs[i].string() << " in "
                  << std::chrono::duration_cast<std::chrono::seconds>(std::chrono::steady_clock::now() - start).count()
                  << " s\n";
    }
    std::cerr << "loci: interventions on " << done << " runs, kept " << kept << " current ones\n";
  });
}

}  // namespace loci::apps
