// `loci train CONFIG [overrides] [-m sweep... [--emit list|slurm [--sbatch KEY=VALUE ...]]] [--resume] [--until-epoch
// N] [--from CHECKPOINT] [--dry-run]`. Under a torchrun-style launcher one run trains data-parallel
// (plugins/torch_trainer/data_parallel.hpp).
#include <iostream>
#include <thread>

#include "apps/commands.hpp"
#include "apps/config_file.hpp"
#include "apps/invocation.hpp"
#include "apps/pipeline/dry_run.hpp"
#include "apps/resolve.hpp"
#include "apps/sweep/sweep.hpp"
#include "core/error.hpp"
#include "core/launch.hpp"
#include "cpu/blas_kernel.hpp"

namespace loci::apps {

namespace {

// After every line of a dry run is out: a run that would be refused makes the command fail, as the real one would.
[[noreturn]] void throw_refused(std::size_t refused, std::size_t runs) {
  throw UserError(
      "--dry-run: " +
      (runs == 1 ? std::string("the run") : std::to_string(refused) + " of " + std::to_string(runs) + " runs") +
      " would be refused (the lines above say why)");
}

struct TrainArgs {
  std::string file;
  std::vector<std::string> overrides;
  bool multirun = false, resume = false, quiet = false, dry_run = false;
  std::int64_t until_epoch = 0;
  std::string from;
  std::string emit;
  std::vector<std::string> sbatch;
};

void check_flag_combinations(const TrainArgs& a) {
  if (!a.sbatch.empty() && a.emit != "slurm")
    throw UserError("--sbatch " + a.sbatch.front() + ": --sbatch options are for -m ... --emit slurm");
  if (a.multirun && !a.from.empty())
    throw UserError("--from continues one run from one checkpoint; it cannot be combined with -m (a sweep)");
}

// -m: resolve one point first, so that a bad key or value stops the sweep before any process starts; then print,
// dry-run or run the whole sweep.
void train_sweep(const TrainArgs& a, plugins::PluginRegistry& registry) {
  const Sweep sweep = plan_sweep(a.overrides);
  const auto& points = sweep.points;
  auto with_fixed = [&](const SweepPoint& p) {
    auto o = sweep.fixed;
    o.insert(o.end(), p.overrides.begin(), p.overrides.end());
    return o;
  };
  const ResolvedConfig first = resolve(a.file, with_fixed(points.front()), registry);
  if (first.kind != ConfigKind::trainer) throw UserError(a.file + ": not a training config (no `trainer:` key)");
  for (const auto& p : points) resolve_node(load_raw(a.file, {}), with_fixed(p), registry, a.file);
  SweepRequest req;
  req.config = a.file;
  req.fixed_overrides = sweep.fixed;
  req.out = first.node.at("out").text();
  if (a.dry_run) {
    const std::size_t refused = dry_run_sweep(load_raw(a.file, {}), a.file, sweep, req.out, registry);
    if (refused) throw_refused(refused, points.size());
    return;
  }
  req.scheduler_options = a.sbatch;
  if (!a.emit.empty()) {
    std::cout << emit_sweep(a.emit, req, points) << std::flush;
    return;
  }
  if (launch_rank().distributed())  // every rank would run the whole sweep into the same folders
    throw UserError(
        "a sweep (-m) starts its own processes: run it once, not under torchrun, mpirun or srun "
        "(or print it with --emit list|slurm)");
  req.jobs = static_cast<int>(first.node.at("jobs").as_int());
  const int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  req.threads_per_job = user_threads(first.node) ? 0 : std::max(1, cores / req.jobs);
  req.resume = a.resume;
  std::cerr << "loci: sweep of " << points.size() << " runs under " << req.out << ", " << req.jobs << " at a time\n";
  const int failed = run_sweep(req, points);
  if (failed) throw UserError(std::to_string(failed) + " of " + std::to_string(points.size()) + " sweep runs failed");
}

void train_one(const TrainArgs& a, plugins::PluginRegistry& registry) {
  const ResolvedConfig r = resolve(a.file, a.overrides, registry);
  if (r.kind != ConfigKind::trainer) throw UserError(a.file + ": not a training config (no `trainer:` key)");
  if (const auto* kernel = r.node.find_path("train.blas_kernel"); kernel && kernel->is_scalar())
    cpu::require(invocation_argv(), kernel->text());
  auto trainer = registry.make_trainer(r.plugin->name);
  plugins::TrainRequest req;
  req.resume = a.resume;
  req.progress = !a.quiet;
  req.until_epoch = a.until_epoch;
  req.dry_run = a.dry_run;
  req.from = a.from;
  if (!a.from.empty()) req.resume = true;
  std::size_t refused = 0;
  req.dry_run_refusals = &refused;
  trainer->train(r.node, req);
  if (refused) throw_refused(refused, 1);
}

}  // namespace

void add_train_command(CLI::App& app) {
  auto a = std::make_shared<TrainArgs>();
  auto* cmd = app.add_subcommand("train", "Train a transformer with a positional encoding on a dataset");
  cmd->add_option("config", a->file, "Training config (YAML), e.g. configs/lst_train.yaml")->required();
  cmd->add_option("overrides", a->overrides, "key.path=value overrides; with -m, key=v1,v2 or key=range(a,b) sweep");
  auto* multirun =
      cmd->add_flag("-m,--multirun", a->multirun,
                    "Sweep: every override with several values spans a grid; one run folder per point under `out`");
  cmd->add_option("--emit", a->emit,
                  "With -m: print the sweep instead of running it, as `list` (one command a line) or `slurm` (a "
                  "job-array script)")
      ->check(CLI::IsMember(sweep_emitters()))
      ->needs(multirun);
  cmd->add_option("--sbatch", a->sbatch,
                  "With --emit slurm, repeatable: an sbatch option without its dashes, KEY=VALUE or KEY "
                  "(partition=gpu, time=4:00:00, cpus-per-task=8, mem=16G, array=0-26%4); written as #SBATCH lines, "
                  "replacing loci's own of that key")
      ->allow_extra_args(false);
  cmd->add_flag("--resume", a->resume, "Continue an interrupted run from its last checkpoint");
  cmd->add_flag(
      "--dry-run", a->dry_run,
      "Only say what would be trained (new, continued, kept, extended or refused, and why); nothing is written");
  cmd->add_option(
      "--from", a->from,
      "Continue from this checkpoint (e.g. RUN/checkpoints/best.pt or epoch_20.pt) instead of the last one");
  cmd->add_option("--until-epoch", a->until_epoch, "Stop after this many epochs, checkpointed; --resume continues")
      ->check(CLI::NonNegativeNumber);
  cmd->add_flag("-q,--quiet", a->quiet, "No progress output");
  cmd->callback([a] {
    a->file = locate_config(a->file);
    check_flag_combinations(*a);
    plugins::PluginRegistry registry;
    if (a->multirun)
      train_sweep(*a, registry);
    else
      train_one(*a, registry);
  });
}

}  // namespace loci::apps
