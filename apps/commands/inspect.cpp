// `loci inspect DIR|SHARD [--verify] [--show N]`: what a dataset holds; with --show, samples drawn by the
// generator that made them when its plugin is at hand.
#include <iostream>

#include "apps/commands.hpp"
#include "core/config/yaml_io.hpp"
#include "core/error.hpp"
#include "datasets/inspect.hpp"
#include "datasets/reader.hpp"
#include "plugins/api/plugin_loader.hpp"

namespace loci::apps {

namespace {

// The generator that made the dataset, configured as it was, so it can draw its own samples; null when its plugin
// is not found or no longer accepts the stored config (raw values are printed then).
std::unique_ptr<plugins::Generator> renderer_for(const datasets::Dataset& ds, plugins::PluginRegistry& registry) {
  const auto& index = ds.index();
  if (index.generator.empty() || index.config_yaml.empty()) return nullptr;
  registry.scan(plugins::PluginRegistry::search_path());
  try {
    const auto& rec = registry.find(index.generator, LOCI_PLUGIN_GENERATOR);
    auto gen = registry.make_generator(rec.name);
    // The stored config leaves out where it was written (generator_identity_drop); this is where it is now.
    config::Node stored = config::parse_yaml(index.config_yaml, ds.path().string() + " (config)");
    if (stored.is_map() && !stored.find("out")) stored.set("out", config::Node::scalar(ds.path().string()));
    gen->configure(rec.schema().resolve(stored));
    return gen;
  } catch (const std::exception& e) {
    std::cerr << "loci: note: samples printed raw (" << e.what() << ")\n";
    return nullptr;
  }
}

}  // namespace

void add_inspect_command(CLI::App& app) {
  struct Args {
    std::string path;
    bool verify = false;
    std::int64_t show = 0;
  };
  auto a = std::make_shared<Args>();
  auto* cmd = app.add_subcommand("inspect", "Print a dataset's arrays, dims, dtypes, splits, attributes and config");
  cmd->add_option("path", a->path, "Dataset folder or one .h5 shard")->required();
  cmd->add_flag("--verify", a->verify, "Check every shard's SHA-256 against index.json");
  cmd->add_option("--show", a->show, "Print the first N samples of each split")->check(CLI::NonNegativeNumber);
  cmd->callback([a] {
    datasets::InspectOptions opt;
    opt.verify = a->verify;
    opt.show = a->show;
    plugins::PluginRegistry registry;
    std::unique_ptr<plugins::Generator> renderer;
    if (a->show > 0) {
      renderer = renderer_for(datasets::Dataset::open(a->path), registry);
      if (renderer)
        opt.format_sample = [&renderer](const datasets::SampleValues& v) { return renderer->render_sample(v.slots()); };
    }
    std::cout << datasets::describe(a->path, opt);
  });
}

}  // namespace loci::apps
