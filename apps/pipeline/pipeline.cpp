#include "apps/pipeline/pipeline.hpp"

#include "apps/pipeline/stage_keys.hpp"
#include "apps/pipeline/stage_schemas.hpp"
#include "apps/resolve.hpp"
#include "apps/sweep/grids.hpp"
#include "core/config/fail_at.hpp"
#include "core/config/overrides.hpp"
#include "core/config/schema.hpp"
#include "core/config/yaml_io.hpp"
#include "core/error.hpp"
#include "core/printable.hpp"

namespace loci::apps {

namespace {

// A stage is present when the config gives it a value (the schema lists every stage, as null when absent).
const config::Node* stage_of(const config::Node& pipeline, const char* name) {
  const config::Node* n = pipeline.find(name);
  return n && !n->is_null() ? n : nullptr;
}

// The stage's mapping as written in the pipeline file, not counting what its `include:` brings.
bool own_key(const config::Node& stage, const char* key) { return stage.is_map() && stage.find(key); }

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
config::Node resolve_small_stage(const config::Node& given, const config::Schema& schema, const char* name,
                                 const char* subfolder, const std::vector<std::string>& overrides,
                                 const std::filesystem::path& folder) {
  config::Node stage = given.is_map() ? given : config::Node::map(given.mark());
  if (!given.is_map() && !(given.is_scalar() && given.text().empty()))
    config::fail_at(given.mark(),
                    "'" + std::string(name) + "' takes a mapping of its settings (or {} for the defaults)");
  check_stage_keys(overrides, name, schema);
  config::Node out = as_typed(name, overrides, [&] { return schema.resolve(stage, overrides); });
  if (out.at("out").text().empty()) out.set("out", config::Node::scalar((folder / subfolder).string(), given.mark()));
  return out;
}

// Each stage the raw pipeline has, with its schema where one is found: where a misplaced key may belong.
std::vector<std::pair<std::string, std::optional<config::Schema>>> stage_schemas(const config::Node& raw,
                                                                                 plugins::PluginRegistry& registry,
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
  if (stage_of(raw, "analyze")) stages.emplace_back("analyze", analyze_stage_schema());
  if (stage_of(raw, "report")) stages.emplace_back("report", report_stage_schema());
  return stages;
}

}  // namespace

namespace {

// The command line's overrides by where they go: pipeline-level keys, and each stage's keys without the stage's
// prefix (a stage's own defaults still apply around them).
struct StageOverrides {
  std::vector<std::string> top, generate, train, analyze, report;
};

StageOverrides split_overrides(const std::vector<std::string>& overrides) {
  StageOverrides s;
  for (const auto& o : overrides) {
    if (o.rfind("generate.", 0) == 0)
      s.generate.push_back(o.substr(9));
    else if (o.rfind("train.", 0) == 0)
      s.train.push_back(o.substr(6));
    else if (o.rfind("analyze.", 0) == 0)
      s.analyze.push_back(o.substr(8));
    else if (o.rfind("report.", 0) == 0)
      s.report.push_back(o.substr(7));
    else
      s.top.push_back(o);
  }
  return s;
}

struct PipelineContext {
  plugins::PluginRegistry& registry;
  const std::filesystem::path& file;
  std::filesystem::path folder;  // the pipeline's `out`
};

// A stage's overrides given on the command line for a stage the pipeline does not have.
void refuse_overrides_without_stage(const std::vector<std::string>& given, const char* stage) {
  if (!given.empty())
    throw UserError("command line '" + given.front() + "': this pipeline has no '" + stage + "' stage");
}

config::Node resolve_pipeline_keys(const config::Node& raw, const std::vector<std::string>& top,
                                   plugins::PluginRegistry& registry, const std::filesystem::path& file) {
  const config::Schema& schema = pipeline_schema();
  for (const auto& arg : top)
    if (!schema.has(config::parse_override(arg).path))
      if (const std::string hint = pipeline_key_hint(arg, stage_schemas(raw, registry, file)); !hint.empty())
        throw UserError(hint);
  return schema.resolve(raw, top);
}

// A stage's plugin_path and plugin_override follow the pipeline's unless the stage sets its own.
void inherit_plugin_keys(config::Node& stage, const config::Node& out) {
  for (const char* key : {"plugin_path", "plugin_override"})
    if (!stage.find(key) && out.find(key)) stage.set(key, *out.find(key));
}

// An entry of `sweep:` as its key=v1,v2 text. On the command line YAML splits `[seed=0,1]` at its comma, so an entry
// without '=' says how to quote it.
std::string sweep_entry(const config::Node& entry) {
  const std::string text = entry.as_string();
  if (text.find('=') == std::string::npos)
    config::fail_at(entry.mark(),
                    "sweep entry '" + printable(text) +
                        "' is not key=v1,v2; on the command line quote each entry: 'train.sweep=[\"seed=0,1\"]'");
  return text;
}

// `sweep:` is one grid (a list of key=v1,v2 entries) or several (a list of such lists), run as their union; taken
// out of the stage, which then resolves as a plain generator or training config.
std::vector<std::vector<std::string>> take_sweep_grids(config::Node& stage) {
  std::vector<std::vector<std::string>> grids;
  if (const config::Node* s = stage.find("sweep")) {
    if (!s->is_sequence()) throw UserError(s->mark().str() + ": 'sweep' takes a list of key=v1,v2 entries");
    const bool nested = !s->items().empty() && s->items().front().is_sequence();
    if (!nested) grids.emplace_back();
    for (const auto& item : s->items()) {
      if (item.is_sequence() != nested)
        config::fail_at(item.mark(), "'sweep' is either a list of key=v1,v2 entries or a list of such lists");
      if (!nested) {
        grids.front().push_back(sweep_entry(item));
        continue;
      }
      grids.emplace_back();
      for (const auto& entry : item.items()) grids.back().push_back(sweep_entry(entry));
    }
    stage.erase("sweep");
  }
  if (grids.empty()) grids.emplace_back();
  return grids;
}

config::Node sweep_node_of(const std::vector<std::vector<std::string>>& grids, const config::Mark& mark) {
  config::Node sweep_node = config::Node::sequence(mark);
  for (const auto& grid : grids) {
    config::Node g = config::Node::sequence(mark);
    for (const auto& entry : grid) g.push_back(config::Node::scalar(entry, mark));
    sweep_node.push_back(std::move(g));
  }
  return sweep_node;
}

// `train.sweep=[...]` (or `generate.sweep=[...]`) on the command line replaces the stage's grid, so a paper pipeline's
// grid is cut down without copying its file; the stage's other overrides are returned.
std::vector<std::string> apply_sweep_override(config::Node& stage, const std::vector<std::string>& train) {
  std::vector<std::string> rest;
  for (const auto& arg : train) {
    config::Override o = config::parse_override(arg);
    if (o.path == "sweep")
      stage.set("sweep", o.value);
    else
      rest.push_back(arg);
  }
  return rest;
}

// A swept generate stage makes one dataset per point, each into <out>/<point>; the train stage's grid then runs on
// each of them through a `data=` axis, whose values are split at commas, so a folder name holds none.
std::string dataset_folder_name(const std::string& point) {
  std::string name;
  for (const char c : point) name += c == ',' ? std::string("%2C") : std::string(1, c);
  return name;
}

// A data= sweep value is split at commas and read as YAML, so a dataset folder's path may hold none of these.
void check_data_axis_path(const std::string& path, const config::Mark& mark) {
  if (const auto bad = path.find_first_of(",'\"[]{}()#"); bad != std::string::npos)
    throw UserError(mark.str() + ": generate.out '" + printable(path) + "' holds '" + path[bad] +
                    "', which a swept generate stage cannot pass to the train stage's data= axis; choose another out");
}

config::Node resolve_one_dataset(config::Node stage, const config::Node& g, const std::vector<std::string>& gen,
                                 const PipelineContext& c) {
  const ResolvedConfig r =
      as_typed("generate", gen, [&] { return resolve_node(stage, gen, c.registry, c.file.string() + " (generate)"); });
  if (r.kind != ConfigKind::generator) config::fail_at(g.mark(), "the 'generate' stage needs a `generator:` key");
  return r.node;
}

void resolve_generate_stage(config::Node& out, const std::vector<std::string>& gen_args, const PipelineContext& c) {
  const config::Node* g = stage_of(out, "generate");
  if (!g) return refuse_overrides_without_stage(gen_args, "generate");
  config::Node stage = config::resolve_includes(*g, c.file.parent_path());
  if (!stage.is_map()) throw UserError(g->mark().str() + ": 'generate' must be a generator config (a mapping)");
  const std::vector<std::string> gen = apply_sweep_override(stage, gen_args);
  const bool swept = stage.find("sweep") != nullptr;
  const auto grids = as_typed("generate", gen_args, [&] { return take_sweep_grids(stage); });
  if (!own_key(*g, "out")) stage.set("out", config::Node::scalar((c.folder / "data").string(), g->mark()));
  inherit_plugin_keys(stage, out);
  if (const auto s = stage_plugin_schema(stage, gen, c.registry)) check_stage_keys(gen, "generate", *s);
  if (!swept) {
    out.set("generate", resolve_one_dataset(stage, *g, gen, c));
    return;
  }
  const std::filesystem::path root = stage.at("out").text();
  check_data_axis_path(root.string(), stage.at("out").mark());
  config::Node datasets = config::Node::sequence(g->mark());
  const Sweep plan = plan_sweep_grids(grids);
  for (const auto& point : plan.points) {
    std::vector<std::string> o = plan.fixed;
    o.insert(o.end(), point.overrides.begin(), point.overrides.end());
    o.insert(o.end(), gen.begin(), gen.end());
    config::Node one = stage;
    one.set("out", config::Node::scalar((root / dataset_folder_name(point.name)).string(), stage.at("out").mark()));
    datasets.push_back(resolve_one_dataset(one, *g, o, c));
  }
  out.set("generate", datasets);
}

// data and out follow the pipeline unless the stage itself sets them: an included training config's own data/out
// (configs/lst_train.yaml's data/lst) belong to its standalone use. After a swept generate stage the grids run on
// every dataset it makes: a `data=` axis leads each grid, so a dataset's runs come together.
void place_train_stage(config::Node& stage, std::vector<std::vector<std::string>>& grids, const config::Node& t,
                       const config::Node& out, const PipelineContext& c) {
  if (!own_key(t, "data")) {
    const config::Node* g = stage_of(out, "generate");
    if (!g) config::fail_at(t.mark(), "the 'train' stage needs `data:` when there is no 'generate' stage");
    if (g->is_sequence()) {
      std::string axis = "data=";
      for (const auto& dataset : g->items()) axis += (axis.size() > 5 ? "," : "") + dataset.at("out").text();
      for (auto& grid : grids) grid.insert(grid.begin(), axis);
      stage.set("data", g->items().front().at("out"));
    } else {
      stage.set("data", g->at("out"));
    }
  }
  if (!own_key(t, "out")) stage.set("out", config::Node::scalar((c.folder / "runs").string(), t.mark()));
  inherit_plugin_keys(stage, out);
}

// Every point of the sweep must resolve before anything runs.
void check_every_sweep_point(const config::Node& stage, const config::Node& t,
                             const std::vector<std::vector<std::string>>& grids, const std::vector<std::string>& train,
                             const PipelineContext& c) {
  const Sweep plan = plan_sweep_grids(grids);
  for (const auto& point : plan.points) {
    auto o = plan.fixed;
    o.insert(o.end(), point.overrides.begin(), point.overrides.end());
    o.insert(o.end(), train.begin(), train.end());
    const ResolvedConfig r =
        as_typed("train", train, [&] { return resolve_node(stage, o, c.registry, c.file.string() + " (train)"); });
    if (r.kind != ConfigKind::trainer) config::fail_at(t.mark(), "the 'train' stage needs a `trainer:` key");
  }
}

void resolve_train_stage(config::Node& out, const std::vector<std::string>& train_args, const PipelineContext& c) {
  const config::Node* t = stage_of(out, "train");
  if (!t) return refuse_overrides_without_stage(train_args, "train");
  config::Node stage = config::resolve_includes(*t, c.file.parent_path());
  if (!stage.is_map()) throw UserError(t->mark().str() + ": 'train' must be a training config (a mapping)");
  const std::vector<std::string> train = apply_sweep_override(stage, train_args);
  auto grids = as_typed("train", train_args, [&] { return take_sweep_grids(stage); });
  place_train_stage(stage, grids, *t, out, c);
  if (const auto s = stage_plugin_schema(stage, train, c.registry)) check_stage_keys(train, "train", *s);
  check_every_sweep_point(stage, *t, grids, train, c);
  config::Node resolved = resolve_node(stage, train, c.registry, c.file.string() + " (train)").node;
  resolved.set("sweep", sweep_node_of(grids, t->mark()));
  out.set("train", resolved);
}

// Without `runs:`, the analysis reads the pipeline's own training stage.
void resolve_analyze_stage(config::Node& out, const std::vector<std::string>& analyze, const PipelineContext& c) {
  const config::Node* a = stage_of(out, "analyze");
  if (!a) return refuse_overrides_without_stage(analyze, "analyze");
  config::Node stage = resolve_small_stage(*a, analyze_stage_schema(), "analyze", "analysis", analyze, c.folder);
  if (stage.at("runs").items().empty()) {
    const config::Node* t = stage_of(out, "train");
    if (!t) throw UserError(a->mark().str() + ": the 'analyze' stage needs `runs:` when there is no 'train' stage");
    config::Node runs = config::Node::sequence(a->mark());
    runs.push_back(t->at("out"));
    stage.set("runs", runs);
  }
  out.set("analyze", stage);
}

void resolve_report_stage(config::Node& out, const std::vector<std::string>& report, const PipelineContext& c) {
  const config::Node* r = stage_of(out, "report");
  if (!r) return refuse_overrides_without_stage(report, "report");
  if (!stage_of(out, "analyze")) throw UserError(r->mark().str() + ": the 'report' stage needs an 'analyze' stage");
  out.set("report", resolve_small_stage(*r, report_stage_schema(), "report", "report", report, c.folder));
}

}  // namespace

std::vector<config::Node> generate_configs(const config::Node& generate) {
  if (!generate.is_sequence()) return {generate};
  return generate.items();
}

config::Node resolve_pipeline(const config::Node& raw, const std::vector<std::string>& overrides,
                              plugins::PluginRegistry& registry, const std::filesystem::path& file) {
  const StageOverrides o = split_overrides(overrides);
  config::Node out = resolve_pipeline_keys(raw, o.top, registry, file);
  const PipelineContext c{registry, file, out.at("out").text()};
  resolve_generate_stage(out, o.generate, c);
  resolve_train_stage(out, o.train, c);
  resolve_analyze_stage(out, o.analyze, c);
  resolve_report_stage(out, o.report, c);
  return out;
}

}  // namespace loci::apps
