// `loci run PIPELINE [overrides]`: the stages of a pipeline config in order; a stage whose outputs exist and verify
// is kept, so an interrupted pipeline resumes where it stopped.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <thread>

#include "apps/commands.hpp"
#include "apps/generate_stage.hpp"
#include "apps/analysis/analyze_all.hpp"
#include "apps/pipeline.hpp"
#include "apps/report.hpp"
#include "apps/resolve.hpp"
#include "apps/sweep_grids.hpp"
#include "datasets/atomic_file.hpp"
#include "datasets/checksum.hpp"
#include "plugins/api/config/yaml_io.hpp"
#include "plugins/api/error.hpp"
#include "plugins/api/launch.hpp"

namespace loci::app {

void add_run_command(CLI::App& app) {
  struct Args {
    std::string file;
    std::vector<std::string> overrides;
    bool quiet = false;
  };
  auto a = std::make_shared<Args>();
  auto* cmd = app.add_subcommand("run", "Run a pipeline: generate -> train -> analyze -> report; finished stages are kept, so a rerun resumes");
  cmd->add_option("pipeline", a->file, "Pipeline config (YAML), e.g. configs/quickstart.yaml")->required();
  cmd->add_option("overrides", a->overrides, "key.path=value overrides; stage keys as generate.seed=3");
  cmd->add_flag("-q,--quiet", a->quiet, "No progress output");
  cmd->callback([a] {
    if (launch_rank().distributed())  // each rank would run every stage, sweeps included, into the same folders
      throw UserError("loci run is one process; under torchrun, mpirun or srun launch `loci generate` and `loci train`");
    const config::Node raw = config::load_file(a->file);
    if (kind_of(raw, a->file) != ConfigKind::pipeline)
      throw UserError(a->file + ": not a pipeline config (it has no stages: generate, train, ...)");
    PluginRegistry registry = load_plugins(raw, a->file);
    const config::Node resolved = resolve_pipeline(raw, a->overrides, registry, a->file);
    // "stage 2/4: train" before each stage, so a log shows where a long pipeline is.
    std::vector<std::string> stages;
    for (const char* s : {"generate", "train", "analyze", "report"})
      if (const auto* n = resolved.find(s); n && !n->is_null()) stages.push_back(s);
    auto begin_stage = [&](const std::string& name) {
      const auto at = std::find(stages.begin(), stages.end(), name) - stages.begin() + 1;
      std::cerr << "loci: stage " << at << "/" << stages.size() << ": " << name << "\n";
    };
    if (const auto* gen = resolved.find("generate"); gen && !gen->is_null()) {
      begin_stage("generate");
      GenerateFlags flags;
      flags.resume = true;  // keeps every shard that verifies: a finished stage is skipped
      flags.progress = !a->quiet;
      const auto& plugin = registry.find(gen->at("generator").text(), LOCI_PLUGIN_GENERATOR);
      const auto report = generate_from_config(*gen, plugin, registry, flags);
      std::cerr << "loci: [generate] " << gen->at("out").text() << ": " << report.shards_kept << " shards kept, "
                << report.shards_written << " written\n";
    }
    if (const auto* train = resolved.find("train"); train && !train->is_null()) {
      begin_stage("train");
      // The stage's resolved config is written once and every run of its sweep starts from it.
      config::Node stage = *train;
      std::vector<std::vector<std::string>> grids;
      for (const auto& g : stage.at("sweep").items()) {
        grids.emplace_back();
        for (const auto& entry : g.items()) grids.back().push_back(entry.text());
      }
      stage.erase("sweep");
      const std::filesystem::path folder = resolved.at("out").text();
      data::make_folder(folder);
      const auto stage_file = folder / "train.yaml";
      data::write_file_atomically(stage_file, config::to_yaml(stage));
      const Sweep sweep = plan_sweep_grids(grids);
      SweepRequest req;
      req.config = stage_file.string();
      req.fixed_overrides = sweep.fixed;
      req.out = stage.at("out").text();
      req.jobs = static_cast<int>(stage.at("jobs").as_int());
      const int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
      req.threads_per_job = std::max(1, cores / req.jobs);
      std::cerr << "loci: [train] " << sweep.points.size() << " runs under " << req.out << "\n";
      const int failed = run_sweep(req, sweep.points);
      if (failed) throw UserError("[train] " + std::to_string(failed) + " runs failed");
    }
    if (const auto* an = resolved.find("analyze"); an && !an->is_null()) {
      begin_stage("analyze");
      analysis::AnalyzeOptions options;
      options.pe_metric = probe::parse_metric(an->at("metric").text());
      options.knn_k = static_cast<int>(an->at("knn").as_int());
      options.mds_dims = static_cast<int>(an->at("mds_dims").as_int());
      std::vector<std::filesystem::path> roots;
      for (const auto& r : an->at("runs").items()) roots.emplace_back(r.text());
      const auto report = analysis::analyze_all(roots, an->at("out").text(), options, !a->quiet);
      std::cerr << "loci: [analyze] " << report.analysed << " runs analysed, " << report.kept << " kept; "
                << (std::filesystem::path(an->at("out").text()) / "summary.md").string() << "\n";
    }
    if (const auto* rep = resolved.find("report"); rep && !rep->is_null()) {
      begin_stage("report");
      // Redrawn only when the summary it draws from changed.
      const std::filesystem::path from = resolved.at("analyze.out").text(), to = rep->at("out").text();
      const std::string inputs = data::sha256_file(from / "summary.csv") + " " + data::sha256_file(from / "runs.csv");
      const auto stamp = to / ".report-inputs";
      std::ifstream old(stamp);
      std::string previous;
      std::getline(old, previous);
      if (previous == inputs && std::filesystem::exists(to / "report.html")) {
        std::cerr << "loci: [report] kept " << (to / "report.html").string() << "\n";
      } else {
        make_report(from, to);
        data::write_file_atomically(stamp, inputs + "\n");
        std::cerr << "loci: [report] " << (to / "report.html").string() << "\n";
      }
    }
  });
}

}  // namespace loci::app
