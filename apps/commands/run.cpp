// `loci run PIPELINE [overrides]`: the stages of a pipeline config in order; a stage whose outputs exist and verify
// is kept, so an interrupted pipeline resumes where it stopped.
#include <iostream>

#include "apps/commands.hpp"
#include "apps/generate_stage.hpp"
#include "apps/pipeline.hpp"
#include "apps/resolve.hpp"
#include "plugins/api/config/yaml_io.hpp"
#include "plugins/api/error.hpp"

namespace loci::app {

void add_run_command(CLI::App& app) {
  struct Args {
    std::string file;
    std::vector<std::string> overrides;
    bool quiet = false;
  };
  auto a = std::make_shared<Args>();
  auto* cmd = app.add_subcommand("run", "Run a pipeline: generate -> train -> analyze -> report (stages built so far: generate)");
  cmd->add_option("pipeline", a->file, "Pipeline config (YAML), e.g. configs/quickstart.yaml")->required();
  cmd->add_option("overrides", a->overrides, "key.path=value overrides; stage keys as generate.seed=3");
  cmd->add_flag("-q,--quiet", a->quiet, "No progress output");
  cmd->callback([a] {
    const config::Node raw = config::load_file(a->file);
    if (kind_of(raw, a->file) != ConfigKind::pipeline)
      throw UserError(a->file + ": not a pipeline config (it has no stages: generate, train, ...)");
    PluginRegistry registry = load_plugins(raw, a->file);
    const config::Node resolved = resolve_pipeline(raw, a->overrides, registry, a->file);
    if (const auto* gen = resolved.find("generate")) {
      GenerateFlags flags;
      flags.resume = true;  // keeps every shard that verifies: a finished stage is skipped
      flags.progress = !a->quiet;
      const auto& plugin = registry.find(gen->at("generator").text(), LOCI_PLUGIN_GENERATOR);
      const auto report = generate_from_config(*gen, plugin, registry, flags);
      std::cerr << "loci: [generate] " << gen->at("out").text() << ": " << report.shards_kept << " shards kept, "
                << report.shards_written << " written\n";
    }
  });
}

}  // namespace loci::app
