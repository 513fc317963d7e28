// `loci generate CONFIG [overrides] [--resume] [--force]`.
#include <iostream>

#include "apps/commands.hpp"
#include "apps/generate_stage.hpp"
#include "apps/resolve.hpp"
#include "plugins/api/error.hpp"

namespace loci::app {

void add_generate_command(CLI::App& app) {
  struct Args {
    std::string file;
    std::vector<std::string> overrides;
    GenerateFlags flags;
    bool quiet = false;
  };
  auto a = std::make_shared<Args>();
  auto* cmd = app.add_subcommand("generate", "Make a dataset (HDF5 shards, index.json, dataset_card.md) from a generator config");
  cmd->add_option("config", a->file, "Generator config (YAML), e.g. configs/lst.yaml")->required();
  cmd->add_option("overrides", a->overrides, "key.path=value overrides, e.g. seed=3 splits.train=600");
  cmd->add_flag("--resume", a->flags.resume, "Keep shards whose checksums verify and make the rest");
  cmd->add_flag("--force", a->flags.force, "Write into a folder that holds a different dataset");
  cmd->add_flag("-q,--quiet", a->quiet, "No progress output");
  cmd->callback([a] {
    PluginRegistry registry;
    const ResolvedConfig r = resolve(a->file, a->overrides, registry);
    if (r.kind != ConfigKind::generator)
      throw UserError(a->file + ": not a generator config (it has no `generator:` key)");
    a->flags.progress = !a->quiet;
    const auto report = generate_from_config(r.node, *r.plugin, registry, a->flags);
    if (!a->quiet)
      std::cerr << "loci: wrote " << report.samples_written << " samples in " << report.shards_written
                << " shards (kept " << report.shards_kept << ") to " << r.node.at("out").text() << " in "
                << report.seconds << " s\n";
  });
}

}  // namespace loci::app
