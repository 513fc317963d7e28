// `loci export RUN [-o FILE] [--force]`: a finished run's trained model as one file torch.load reads, which
// python/loci/torch.py (load_model) rebuilds in plain PyTorch and checks against loci's own outputs.
#include "apps/commands.hpp"
#include "apps/resolve.hpp"

namespace loci::apps {

void add_export_command(CLI::App& app) {
  struct Args {
    std::string run, out;
    bool force = false;
  };
  auto a = std::make_shared<Args>();
  auto* cmd =
      app.add_subcommand("export",
                         "Write a finished run's model as a file PyTorch loads (python: loci.torch.load_model), with a "
                         "reference batch of loci's outputs it checks itself against");
  cmd->add_option("run", a->run, "A finished run folder")->required();
  cmd->add_option("-o,--out", a->out, "The file to write (default: RUN/model.pt)");
  cmd->add_flag("--force", a->force, "Replace the file when it exists");
  cmd->callback([a] {
    plugins::PluginRegistry registry;
    const ResolvedConfig r = resolve_run(a->run, registry);
    plugins::ExportRequest req;
    req.run = a->run;
    req.out = a->out;
    req.force = a->force;
    registry.make_trainer(r.plugin->name)->export_model(r.node, req);
  });
}

}  // namespace loci::apps
