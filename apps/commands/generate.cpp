// `loci generate CONFIG [overrides] [--resume] [--force] [--merge]`. Under a multi-process launcher (torchrun, mpirun,
// srun) each process makes its own shards of one dataset; see core/launch.hpp.
#include <iostream>

#include "apps/commands.hpp"
#include "apps/config_file.hpp"
#include "apps/pipeline/generate_stage.hpp"
#include "apps/resolve.hpp"
#include "core/error.hpp"
#include "core/launch.hpp"

namespace loci::apps {

void add_generate_command(CLI::App& app) {
  struct Args {
    std::string file;
    std::vector<std::string> overrides;
    GenerateFlags flags;
    bool quiet = false;
  };
  auto a = std::make_shared<Args>();
  auto* cmd = app.add_subcommand("generate",
                                 "Make a dataset (HDF5 shards, index.json, dataset_card.md) from a generator config");
  cmd->add_option("config", a->file, "Generator config (YAML), e.g. configs/lst.yaml")->required();
  cmd->add_option("overrides", a->overrides, "key.path=value overrides, e.g. seed=3 splits.train=600");
  auto* resume = cmd->add_flag("--resume", a->flags.resume, "Keep shards whose checksums verify and make the rest");
  auto* force = cmd->add_flag("--force", a->flags.force, "Write into a folder that holds a different dataset");
  cmd->add_flag("--merge", a->flags.merge,
                "Make nothing: write index.json from the records of a multi-process run whose shards all exist")
      ->excludes(resume)
      ->excludes(force);
  cmd->add_flag("-q,--quiet", a->quiet, "No progress output");
  cmd->callback([a] {
    a->file = locate_config(a->file);
    plugins::PluginRegistry registry;
    const ResolvedConfig r = resolve(a->file, a->overrides, registry);
    if (r.kind != ConfigKind::generator)
      throw UserError(a->file + ": not a generator config (it has no `generator:` key)");
    const LaunchRank launch = a->flags.merge ? LaunchRank{} : launch_rank();
    a->flags.rank = launch.rank;
    a->flags.world_size = launch.world_size;
    a->flags.progress = !a->quiet;
    const auto report = generate_from_config(r.node, *r.plugin, registry, a->flags);
    const std::string out = r.node.at("out").text();
    if (a->flags.merge) {
      std::cerr << "loci: " << out << "/index.json lists all " << report.shards_kept << " shards\n";
      return;
    }
    if (a->quiet) return;
    const std::string who = launch.distributed() ? "rank " + std::to_string(launch.rank) + " of " +
                                                       std::to_string(launch.world_size) + " (" + launch.source + ") "
                                                 : "";
    std::cerr << "loci: " << who << "wrote " << report.samples_written << " samples in " << report.shards_written
              << " shards (kept " << report.shards_kept << ") to " << out << " in " << report.seconds << " s\n";
    if (launch.distributed())
      std::cerr << "loci: "
                << (report.complete ? "index.json is in place: every rank's shards are made"
                                    : "index.json follows when the last rank finishes (or run with --merge)")
                << "\n";
  });
}

}  // namespace loci::apps
