// `loci export RUN [-o FILE] [--force]`: a finished run's trained model as one file torch.load reads, which
// python/loci/torch.py (load_model) rebuilds in plain PyTorch and checks against loci's own outputs.
#include <iostream>

#include "apps/commands.hpp"
#include "apps/resolve.hpp"
#include "core/error.hpp"

namespace loci::apps {

namespace fs = std::filesystem;

void add_export_command(CLI::App& app) {
  struct Args {
    std::string run, out;
    bool force = false;
  };
  auto a = std::make_shared<Args>();
  auto* cmd = app.add_subcommand(
      "export", "Write a finished run's model as a file PyTorch loads (python: loci.torch.load_model), with a "
                "reference batch of loci's outputs it checks itself against");
  cmd->add_option("run", a->run, "A finished run folder")->required();
  cmd->add_option("-o,--out", a->out, "The file to write (default: RUN/model.pt)");
  cmd->add_flag("--force", a->force, "Replace the file when it exists");
  cmd->callback([a] {
    const fs::path run = a->run, config = run / "config.yaml";
    if (!fs::is_regular_file(config)) throw UserError(run.string() + ": no config.yaml; not a loci run folder");
    plugins::PluginRegistry registry;
    const ResolvedConfig r = resolve(config, {}, registry);
    if (r.kind != ConfigKind::trainer) throw UserError(config.string() + ": not a training run's config (no `trainer:`)");
    plugins::ExportRequest req;
    req.run = run;
    req.out = a->out;
    req.force = a->force;
    registry.make_trainer(r.plugin->name)->export_model(r.node, req);
  });
}

}  // namespace loci::apps
