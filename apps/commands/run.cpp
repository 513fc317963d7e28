// `loci run PIPELINE [overrides] [--stages ...] [--emit slurm [--sbatch KEY=VALUE ...]]`: the stages of a pipeline
// config in order; a stage whose outputs exist and verify is kept, so an interrupted pipeline resumes where it stopped.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <thread>

#include "apps/analysis/analyze_all.hpp"
#include "apps/analysis/analyze_options.hpp"
#include "apps/commands.hpp"
#include "apps/config_file.hpp"
#include "apps/pipeline/dry_run.hpp"
#include "apps/pipeline/emit.hpp"
#include "apps/pipeline/generate_stage.hpp"
#include "apps/pipeline/pipeline.hpp"
#include "apps/pipeline/stage_sweep.hpp"
#include "apps/report/report.hpp"
#include "apps/resolve.hpp"
#include "core/config/yaml_io.hpp"
#include "core/error.hpp"
#include "core/launch.hpp"
#include "datasets/atomic_file.hpp"
#include "datasets/checksum.hpp"

namespace loci::apps {

namespace {

namespace fs = std::filesystem;

// How this invocation runs its stages.
struct RunFlags {
  std::string file;
  bool quiet = false;
  bool dry_run = false;
  std::vector<std::string> stages;  // --stages: only these (empty: all)
  std::string emit;                 // --emit slurm: print the pipeline as Slurm jobs instead
  std::vector<std::string> sbatch;
  std::size_t refused = 0;  // with dry_run: stages and runs that would be refused
};

void generate_one(const config::Node& gen, plugins::PluginRegistry& registry, RunFlags& f) {
  const auto& plugin = registry.find(gen.at("generator").text(), LOCI_PLUGIN_GENERATOR);
  if (f.dry_run) {
    const std::string line = dry_run_generate(gen, plugin, registry);
    f.refused += dry_run_refused(line) ? 1 : 0;
    std::cout << "[generate] " << line << "\n";
    return;
  }
  GenerateFlags flags;
  flags.resume = true;  // keeps every shard that verifies: a finished stage is skipped
  flags.progress = !f.quiet;
  const auto report = generate_from_config(gen, plugin, registry, flags);
  std::cerr << "loci: [generate] " << gen.at("out").text() << ": " << report.shards_kept << " shards kept, "
            << report.shards_written << " written\n";
}

void generate_stage(const config::Node& stage, plugins::PluginRegistry& registry, RunFlags& f) {
  for (const auto& gen : generate_configs(stage)) generate_one(gen, registry, f);
}

void train_stage(const config::Node& train, const fs::path& folder, plugins::PluginRegistry& registry, RunFlags& f) {
  const auto [stage, sweep] = stage_sweep(train);
  if (f.dry_run) {
    const std::string out = stage.at("out").text();
    std::cout << "[train] " << sweep.points.size() << " runs under " << out << "\n";
    f.refused += dry_run_sweep(stage, f.file + " (train)", sweep, out, registry);
    return;
  }
  SweepRequest req = sweep_request(stage, sweep, folder);
  const int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  req.threads_per_job = user_threads(stage) ? 0 : std::max(1, cores / req.jobs);
  std::cerr << "loci: [train] " << sweep.points.size() << " runs under " << req.out << "\n";
  const int failed = run_sweep(req, sweep.points);
  if (failed) throw UserError("[train] " + std::to_string(failed) + " runs failed");
}

void analyze_stage(const config::Node& an, const RunFlags& f) {
  analysis::AnalyzeOptions options;
  analysis::analyze_options().read(an, options);
  std::vector<fs::path> roots;
  for (const auto& r : an.at("runs").items()) roots.emplace_back(r.text());
  if (f.dry_run) {
    std::size_t current = 0;
    std::vector<fs::path> present;  // roots the train stage has not made yet hold nothing to count
    for (const auto& r : roots)
      if (fs::exists(r)) present.push_back(r);
    const auto folders = present.empty() ? std::vector<fs::path>{} : analysis::find_run_folders(present);
    for (const auto& folder : folders) current += analysis::analysis_is_current(folder, options) ? 1 : 0;
    std::cout << "[analyze] " << folders.size() << " runs there now: " << current << " analyses current (kept), "
              << folders.size() - current << " to make; then every run the train stage makes; summary into "
              << an.at("out").text() << "\n";
    return;
  }
  const auto report = analysis::analyze_all(roots, an.at("out").text(), options, !f.quiet);
  std::cerr << analysis::unfinished_lines(report) << "loci: [analyze] " << report.analysed << " runs analysed, "
            << report.kept << " kept; " << (fs::path(an.at("out").text()) / "summary.md").string() << "\n";
}

// Redrawn only when the summary it draws from changed.
void report_stage(const fs::path& from, const fs::path& to, const RunFlags& f) {
  auto inputs = [&] {
    return datasets::sha256_file(from / "summary.csv") + " " + datasets::sha256_file(from / "runs.csv");
  };
  const auto stamp = to / ".report-inputs";
  std::ifstream old(stamp);
  std::string previous;
  std::getline(old, previous);
  const bool drawn =
      fs::exists(to / "report.html") && fs::exists(from / "summary.csv") && fs::exists(from / "runs.csv");
  if (f.dry_run) {
    std::cout << "[report] " << (to / "report.html").string() << ": "
              << (drawn && previous == inputs() ? "kept while the summary stays as it is" : "drawn from the analysis")
              << "\n";
    return;
  }
  if (drawn && previous == inputs()) {
    std::cerr << "loci: [report] kept " << (to / "report.html").string() << "\n";
    return;
  }
  make_report(from, to);
  datasets::write_file_atomically(stamp, inputs() + "\n");
  std::cerr << "loci: [report] " << (to / "report.html").string() << "\n";
}

const config::Node* stage(const config::Node& resolved, const char* name) {
  const auto* n = resolved.find(name);
  return n && !n->is_null() ? n : nullptr;
}

}  // namespace

void add_run_command(CLI::App& app) {
  struct Args {
    RunFlags flags;
    std::vector<std::string> overrides;
  };
  auto a = std::make_shared<Args>();
  auto* cmd = app.add_subcommand(
      "run", "Run a pipeline: generate -> train -> analyze -> report; finished stages are kept, so a rerun resumes");
  cmd->add_option("pipeline", a->flags.file, "Pipeline config (YAML), e.g. configs/quickstart.yaml")->required();
  cmd->add_option("overrides", a->overrides, "key.path=value overrides; stage keys as generate.seed=3");
  cmd->add_flag("-q,--quiet", a->flags.quiet, "No progress output");
  cmd->add_option(
         "--stages", a->flags.stages,
         "Only these stages, comma-separated (generate,train,analyze,report); the others' outputs must be there")
      ->delimiter(',')
      ->check(CLI::IsMember({"generate", "train", "analyze", "report"}));
  cmd->add_option("--emit", a->flags.emit,
                  "Print the pipeline as Slurm jobs instead of running it (pipe into sbatch): generation, the train "
                  "stage as a job array, analysis and report after it")
      ->check(CLI::IsMember({"slurm"}));
  cmd->add_option("--sbatch", a->flags.sbatch,
                  "With --emit slurm, repeatable: an sbatch option without its dashes (partition=cpu, time=2:00:00, "
                  "cpus-per-task=4), for every job the pipeline submits")
      ->allow_extra_args(false);
  cmd->add_flag("--dry-run", a->flags.dry_run,
                "Only say what each stage and run would do (make, continue, keep, extend or refuse, and why); "
                "nothing is written");
  cmd->callback([a] {
    RunFlags& f = a->flags;
    f.file = locate_config(f.file);
    if (launch_rank().distributed())  // each rank would run every stage, sweeps included, into the same folders
      throw UserError(
          "loci run is one process; under torchrun, mpirun or srun launch `loci generate` and `loci train`");
    const config::Node raw = config::load_file(f.file);
    if (kind_of(raw, f.file) != ConfigKind::pipeline)
      throw UserError(f.file + ": not a pipeline config (it has no stages: generate, train, ...)");
    plugins::PluginRegistry registry = load_plugins(raw, f.file, a->overrides);
    if (!f.sbatch.empty() && f.emit.empty())
      throw UserError("--sbatch " + f.sbatch.front() + ": --sbatch options are for --emit slurm");
    const config::Node resolved = resolve_pipeline(raw, a->overrides, registry, f.file);
    if (!f.emit.empty()) {
      std::cout << emit_pipeline_slurm(resolved, {f.file, a->overrides, f.sbatch}) << std::flush;
      return;
    }
    for (const auto& s : f.stages)
      if (!stage(resolved, s.c_str())) throw UserError("--stages " + s + ": " + f.file + " has no " + s + " stage");
    auto chosen = [&](const char* name) -> const config::Node* {
      const bool asked = f.stages.empty() || std::find(f.stages.begin(), f.stages.end(), name) != f.stages.end();
      return asked ? stage(resolved, name) : nullptr;
    };
    if (chosen("analyze") && !f.dry_run) registry.load_extensions();  // their probes
    // "stage 2/4: train" before each stage, so a log shows where a long pipeline is.
    std::vector<std::string> stages;
    for (const char* s : {"generate", "train", "analyze", "report"})
      if (chosen(s)) stages.push_back(s);
    auto begin_stage = [&](const std::string& name) {
      const auto at = std::find(stages.begin(), stages.end(), name) - stages.begin() + 1;
      if (!f.dry_run) std::cerr << "loci: stage " << at << "/" << stages.size() << ": " << name << "\n";
    };
    if (const auto* gen = chosen("generate")) begin_stage("generate"), generate_stage(*gen, registry, f);
    if (const auto* train = chosen("train"))
      begin_stage("train"), train_stage(*train, resolved.at("out").text(), registry, f);
    if (const auto* an = chosen("analyze")) begin_stage("analyze"), analyze_stage(*an, f);
    if (const auto* rep = chosen("report"))
      begin_stage("report"), report_stage(resolved.at("analyze.out").text(), rep->at("out").text(), f);
    if (f.refused)
      throw UserError("--dry-run: " + std::to_string(f.refused) +
                      (f.refused == 1 ? " stage or run" : " stages or runs") +
                      " would be refused (the lines above say why)");
  });
}

}  // namespace loci::apps
