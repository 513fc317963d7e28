// `loci run PIPELINE [overrides]`: the stages of a pipeline config in order; a stage whose outputs exist and verify
// is kept, so an interrupted pipeline resumes where it stopped.
#include <filesystem>
#include <iostream>
#include <thread>

#include "apps/commands.hpp"
#include "apps/generate_stage.hpp"
#include "apps/pipeline.hpp"
#include "apps/resolve.hpp"
#include "apps/sweep.hpp"
#include "datasets/atomic_file.hpp"
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
  auto* cmd = app.add_subcommand("run", "Run a pipeline: generate -> train -> analyze -> report (stages built so far: generate, train)");
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
    if (const auto* gen = resolved.find("generate"); gen && !gen->is_null()) {
      GenerateFlags flags;
      flags.resume = true;  // keeps every shard that verifies: a finished stage is skipped
      flags.progress = !a->quiet;
      const auto& plugin = registry.find(gen->at("generator").text(), LOCI_PLUGIN_GENERATOR);
      const auto report = generate_from_config(*gen, plugin, registry, flags);
      std::cerr << "loci: [generate] " << gen->at("out").text() << ": " << report.shards_kept << " shards kept, "
                << report.shards_written << " written\n";
    }
    if (const auto* train = resolved.find("train"); train && !train->is_null()) {
      // The stage's resolved config is written once and every run of its sweep starts from it.
      config::Node stage = *train;
      std::vector<std::string> sweep_args;
      for (const auto& s : stage.at("sweep").items()) sweep_args.push_back(s.text());
      stage.erase("sweep");
      const std::filesystem::path folder = resolved.at("out").text();
      data::make_folder(folder);
      const auto stage_file = folder / "train.yaml";
      data::write_file_atomically(stage_file, config::to_yaml(stage));
      const Sweep sweep = plan_sweep(sweep_args);
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
  });
}

}  // namespace loci::app
