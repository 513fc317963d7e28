#include "apps/pipeline.hpp"

#include "apps/resolve.hpp"
#include "plugins/api/config/overrides.hpp"
#include "plugins/api/config/schema.hpp"
#include "plugins/api/config/yaml_io.hpp"
#include "plugins/api/error.hpp"

namespace loci::app {

namespace {

const char* kPipelineSchema = R"yaml(
out: {type: path, required: true, doc: "pipeline folder: every stage writes below it"}
generate: {type: any, doc: "generator config (see `loci config schema GENERATOR`); out defaults to <out>/data"}
train: {type: any, doc: "training config [not built yet]"}
analyze: {type: any, doc: "analysis config [not built yet]"}
report: {type: any, doc: "report config [not built yet]"}
plugin_path: {type: list, of: path, default: [], doc: "extra folders searched for plugins"}
)yaml";

}  // namespace

config::Node resolve_pipeline(const config::Node& raw, const std::vector<std::string>& overrides,
                              PluginRegistry& registry, const std::filesystem::path& file) {
  // Pipeline-level keys first; stage keys go to the stage, so a stage's own defaults still apply around them.
  std::vector<std::string> top, gen;
  for (const auto& o : overrides) {
    if (o.rfind("generate.", 0) == 0) gen.push_back(o.substr(9));
    else top.push_back(o);
  }
  static const config::Schema schema = config::Schema::parse(kPipelineSchema, "pipeline schema");
  config::Node out = schema.resolve(raw, top);
  const std::filesystem::path folder = out.at("out").text();

  for (const char* stage : {"train", "analyze", "report"})
    if (out.find(stage))
      throw UserError(out.find(stage)->key_mark().str() + ": the '" + stage + "' stage is not built yet");

  if (const config::Node* g = out.find("generate")) {
    config::Node stage = config::resolve_includes(*g, file.parent_path());
    if (!stage.is_map()) throw UserError(g->mark().str() + ": 'generate' must be a generator config (a mapping)");
    if (!stage.find("out")) stage.set("out", config::Node::scalar((folder / "data").string(), g->mark()));
    if (!stage.find("plugin_path") && out.find("plugin_path")) stage.set("plugin_path", *out.find("plugin_path"));
    const ResolvedConfig r = resolve_node(stage, gen, registry, file.string() + " (generate)");
    if (r.kind != ConfigKind::generator)
      throw UserError(g->mark().str() + ": the 'generate' stage needs a `generator:` key");
    out.set("generate", r.node);
  } else if (!gen.empty()) {
    throw UserError("command line '" + gen.front() + "': this pipeline has no 'generate' stage");
  }
  return out;
}

}  // namespace loci::app
