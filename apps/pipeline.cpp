#include "apps/pipeline.hpp"

#include "apps/analysis/analyze_options.hpp"
#include "apps/resolve.hpp"
#include "apps/stage_keys.hpp"
#include "apps/sweep_grids.hpp"
#include "plugins/api/config/overrides.hpp"
#include "plugins/api/config/schema.hpp"
#include "plugins/api/config/yaml_io.hpp"
#include "plugins/api/error.hpp"

namespace loci::app {

namespace {

const char* kPipelineSchema = R"yaml(
out: {type: path, required: true, doc: "pipeline folder: every stage writes below it"}
generate: {type: any, doc: "generator config (see `loci config schema GENERATOR`); out defaults to <out>/data"}
train: {type: any, doc: "training config (see `loci config schema TRAINER`) plus `sweep:` (one grid [key=v1,v2, ...] or a list of grids, run as their union); data defaults to the generate stage's out, out to <out>/runs"}
analyze: {type: any, doc: "analysis of the trained runs (`loci analyze`): {runs, out, metric, knn, mds_dims, attention_reference}; runs default to the train stage's out, out to <out>/analysis"}
report: {type: any, doc: "report of the analysis (`loci report`): {out}; out defaults to <out>/report"}
plugin_path: {type: list, of: path, default: [], doc: "extra folders searched for plugins"}
plugin_override: {type: list, of: string, default: [], doc: "plugin names that more than one library may provide, the first found on the search path winning; any other name found twice is an error"}
)yaml";

// A stage is present when the config gives it a value (the schema lists every stage, as null when absent).
const config::Node* stage_of(const config::Node& pipeline, const char* name) {
  const config::Node* n = pipeline.find(name);
  return n && !n->is_null() ? n : nullptr;
}

// The stage's mapping as written in the pipeline file, not counting what its `include:` brings.
bool own_key(const config::Node& stage, const char* key) { return stage.is_map() && stage.find(key); }

// The stage's own keys, then the analysis options as declared once (apps/analysis/analyze_options.cpp).
const std::string& analyze_schema() {
  static const std::string text =
      "runs: {type: list, of: path, default: [], doc: \"run folders or folders holding runs; [] = the train stage's out\"}\n"
      "out: {type: path, default: \"\", doc: \"folder of summary.csv / summary.md / runs.csv; empty = <pipeline "
      "out>/analysis\"}\n" +
      analysis::analyze_options().schema();
  return text;
}

const char* kReportSchema = R"yaml(
out: {type: path, default: "", doc: "folder of report.html and figures/; empty = <pipeline out>/report"}
)yaml";

// Runs `resolve`; an error it throws about one of the stage's command-line keys quotes the key as typed
// ('train.seeed=1', where the stage saw 'seeed=1').
template <class Resolve>
auto as_typed(const std::string& stage, const std::vector<std::string>& args, Resolve&& resolve) {
  try {
    return resolve();
  } catch (const UserError& e) {
    std::string message = e.what();
    for (const auto& arg : args)
      if (const std::string head = "command line '" + arg + "'"; message.rfind(head, 0) == 0) {
        message.replace(0, head.size(), "command line '" + stage + "." + arg + "'");
        break;
      }
    throw UserError(message);
  }
}

// An analyze or report stage: its own small schema, its out defaulting below the pipeline folder.
config::Node resolve_small_stage(const config::Node& given, const char* schema_text, const char* name,
                                 const char* subfolder, const std::vector<std::string>& overrides,
                                 const std::filesystem::path& folder) {
  const config::Schema schema = config::Schema::parse(schema_text, std::string(name) + " stage schema");
  config::Node stage = given.is_map() ? given : config::Node::map(given.mark());
  if (!given.is_map() && !(given.is_scalar() && given.text().empty()))
    throw UserError(given.mark().str() + ": '" + name + "' takes a mapping of its settings (or {} for the defaults)");
  check_stage_keys(overrides, name, schema);
  config::Node out = as_typed(name, overrides, [&] { return schema.resolve(stage, overrides); });
  if (out.at("out").text().empty()) out.set("out", config::Node::scalar((folder / subfolder).string(), given.mark()));
  return out;
}

// Each stage the raw pipeline has, with its schema where one is found: where a misplaced key may belong.
std::vector<std::pair<std::string, std::optional<config::Schema>>> stage_schemas(const config::Node& raw,
                                                                                 PluginRegistry& registry,
                                                                                 const std::filesystem::path& file) {
  std::vector<std::pair<std::string, std::optional<config::Schema>>> stages;
  for (const char* name : {"generate", "train"})
    if (const config::Node* s = stage_of(raw, name)) {
      std::optional<config::Schema> schema;
      try {
        schema = stage_plugin_schema(config::resolve_includes(*s, file.parent_path()), {}, registry);
      } catch (const UserError&) {  // its own resolution says what is wrong with it
      }
      stages.emplace_back(name, std::move(schema));
    }
  if (stage_of(raw, "analyze")) stages.emplace_back("analyze", config::Schema::parse(analyze_schema(), "analyze stage schema"));
  if (stage_of(raw, "report")) stages.emplace_back("report", config::Schema::parse(kReportSchema, "report stage schema"));
  return stages;
}

}  // namespace

config::Node resolve_pipeline(const config::Node& raw, const std::vector<std::string>& overrides,
                              PluginRegistry& registry, const std::filesystem::path& file) {
  // Pipeline-level keys first; stage keys go to the stage, so a stage's own defaults still apply around them.
  std::vector<std::string> top, gen, train, analyze, report;
  for (const auto& o : overrides) {
    if (o.rfind("generate.", 0) == 0) gen.push_back(o.substr(9));
    else if (o.rfind("train.", 0) == 0) train.push_back(o.substr(6));
    else if (o.rfind("analyze.", 0) == 0) analyze.push_back(o.substr(8));
    else if (o.rfind("report.", 0) == 0) report.push_back(o.substr(7));
    else top.push_back(o);
  }
  static const config::Schema schema = config::Schema::parse(kPipelineSchema, "pipeline schema");
  for (const auto& arg : top)
    if (!schema.has(config::parse_override(arg).path))
      if (const std::string hint = pipeline_key_hint(arg, stage_schemas(raw, registry, file)); !hint.empty())
        throw UserError(hint);
  config::Node out = schema.resolve(raw, top);
  const std::filesystem::path folder = out.at("out").text();

  if (const config::Node* g = stage_of(out, "generate")) {
    config::Node stage = config::resolve_includes(*g, file.parent_path());
    if (!stage.is_map()) throw UserError(g->mark().str() + ": 'generate' must be a generator config (a mapping)");
    if (!own_key(*g, "out")) stage.set("out", config::Node::scalar((folder / "data").string(), g->mark()));
    for (const char* key : {"plugin_path", "plugin_override"})
      if (!stage.find(key) && out.find(key)) stage.set(key, *out.find(key));
    if (const auto s = stage_plugin_schema(stage, gen, registry)) check_stage_keys(gen, "generate", *s);
    const ResolvedConfig r = as_typed("generate", gen, [&] { return resolve_node(stage, gen, registry, file.string() + " (generate)"); });
    if (r.kind != ConfigKind::generator)
      throw UserError(g->mark().str() + ": the 'generate' stage needs a `generator:` key");
    out.set("generate", r.node);
  } else if (!gen.empty()) {
    throw UserError("command line '" + gen.front() + "': this pipeline has no 'generate' stage");
  }

  if (const config::Node* t = stage_of(out, "train")) {
    config::Node stage = config::resolve_includes(*t, file.parent_path());
    if (!stage.is_map()) throw UserError(t->mark().str() + ": 'train' must be a training config (a mapping)");
    // `sweep:` is one grid (a list of key=v1,v2 entries) or several (a list of such lists), run as their union.
    std::vector<std::vector<std::string>> grids;
    if (const config::Node* s = stage.find("sweep")) {
      if (!s->is_sequence()) throw UserError(s->mark().str() + ": 'sweep' takes a list of key=v1,v2 entries");
      const bool nested = !s->items().empty() && s->items().front().is_sequence();
      if (!nested) grids.emplace_back();
      for (const auto& item : s->items()) {
        if (item.is_sequence() != nested)
          throw UserError(item.mark().str() + ": 'sweep' is either a list of key=v1,v2 entries or a list of such lists");
        if (!nested) {
          grids.front().push_back(item.as_string());
          continue;
        }
        grids.emplace_back();
        for (const auto& entry : item.items()) grids.back().push_back(entry.as_string());
      }
      stage.erase("sweep");
    }
    if (grids.empty()) grids.emplace_back();
    // data and out follow the pipeline unless the stage itself sets them: an included training config's own
    // data/out (configs/lst_train.yaml's data/lst) belong to its standalone use.
    if (!own_key(*t, "data")) {
      const config::Node* g = stage_of(out, "generate");
      if (!g) throw UserError(t->mark().str() + ": the 'train' stage needs `data:` when there is no 'generate' stage");
      stage.set("data", g->at("out"));
    }
    if (!own_key(*t, "out")) stage.set("out", config::Node::scalar((folder / "runs").string(), t->mark()));
    for (const char* key : {"plugin_path", "plugin_override"})
      if (!stage.find(key) && out.find(key)) stage.set(key, *out.find(key));
    if (const auto s = stage_plugin_schema(stage, train, registry)) check_stage_keys(train, "train", *s);
    // Every point of the sweep must resolve before anything runs.
    const Sweep plan = plan_sweep_grids(grids);
    for (const auto& point : plan.points) {
      auto o = plan.fixed;
      o.insert(o.end(), point.overrides.begin(), point.overrides.end());
      o.insert(o.end(), train.begin(), train.end());
      const ResolvedConfig r = as_typed("train", train, [&] { return resolve_node(stage, o, registry, file.string() + " (train)"); });
      if (r.kind != ConfigKind::trainer) throw UserError(t->mark().str() + ": the 'train' stage needs a `trainer:` key");
    }
    config::Node resolved = resolve_node(stage, train, registry, file.string() + " (train)").node;
    config::Node sweep_node = config::Node::sequence(t->mark());
    for (const auto& grid : grids) {
      config::Node g = config::Node::sequence(t->mark());
      for (const auto& entry : grid) g.push_back(config::Node::scalar(entry, t->mark()));
      sweep_node.push_back(std::move(g));
    }
    resolved.set("sweep", sweep_node);
    out.set("train", resolved);
  } else if (!train.empty()) {
    throw UserError("command line '" + train.front() + "': this pipeline has no 'train' stage");
  }

  if (const config::Node* a = stage_of(out, "analyze")) {
    config::Node stage = resolve_small_stage(*a, analyze_schema().c_str(), "analyze", "analysis", analyze, folder);
    if (stage.at("runs").items().empty()) {
      const config::Node* t = stage_of(out, "train");
      if (!t) throw UserError(a->mark().str() + ": the 'analyze' stage needs `runs:` when there is no 'train' stage");
      config::Node runs = config::Node::sequence(a->mark());
      runs.push_back(t->at("out"));
      stage.set("runs", runs);
    }
    out.set("analyze", stage);
  } else if (!analyze.empty()) {
    throw UserError("command line '" + analyze.front() + "': this pipeline has no 'analyze' stage");
  }

  if (const config::Node* r = stage_of(out, "report")) {
    if (!stage_of(out, "analyze")) throw UserError(r->mark().str() + ": the 'report' stage needs an 'analyze' stage");
    out.set("report", resolve_small_stage(*r, kReportSchema, "report", "report", report, folder));
  } else if (!report.empty()) {
    throw UserError("command line '" + report.front() + "': this pipeline has no 'report' stage");
  }
  return out;
}

}  // namespace loci::app
