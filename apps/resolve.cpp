#include "apps/resolve.hpp"

#include "core/config/fail_at.hpp"
#include "core/config/overrides.hpp"
#include "core/config/yaml_io.hpp"
#include "core/error.hpp"

namespace loci::apps {
namespace fs = std::filesystem;

config::Node load_raw(const fs::path& file, const std::vector<std::string>& overrides) {
  config::Node raw = config::load_file(file);
  config::apply_overrides(raw, overrides);
  return raw;
}

ConfigKind kind_of(const config::Node& raw, const std::string& where) {
  if (raw.find("generator")) return ConfigKind::generator;
  if (raw.find("trainer")) return ConfigKind::trainer;
  for (const char* stage : {"generate", "train", "analyze", "report"})
    if (raw.find(stage)) return ConfigKind::pipeline;
  throw UserError(where + ": a config names a `generator:`, a `trainer:`, or pipeline stages (generate, train, ...)");
}

plugins::PluginRegistry load_plugins(const config::Node& raw_config, const fs::path& config_file,
                                     const std::vector<std::string>& overrides) {
  config::Node raw = raw_config;
  std::vector<std::string> plugin_keys;
  for (const auto& o : overrides)
    if (o.rfind("plugin_path=", 0) == 0 || o.rfind("plugin_override=", 0) == 0) plugin_keys.push_back(o);
  config::apply_overrides(raw, plugin_keys);
  std::vector<fs::path> extra;
  if (const auto* pp = raw.find("plugin_path"); pp && pp->is_sequence())
    for (const auto& item : pp->items()) {
      fs::path p = item.text();
      if (p.is_relative()) p = config::folder_of(item, config_file.parent_path()) / p;
      extra.push_back(p);
    }
  std::vector<std::string> override_names;
  if (const auto* po = raw.find("plugin_override"); po && po->is_sequence())
    for (const auto& item : po->items()) override_names.push_back(item.text());
  plugins::PluginRegistry registry;
  registry.scan(plugins::PluginRegistry::search_path(extra), override_names);
  return registry;
}

ResolvedConfig resolve_node(const config::Node& raw, const std::vector<std::string>& overrides,
                            plugins::PluginRegistry& registry, const std::string& where) {
  config::Node with_overrides = raw;
  config::apply_overrides(with_overrides, overrides);
  ResolvedConfig out;
  out.kind = kind_of(with_overrides, where);
  if (out.kind == ConfigKind::pipeline) {
    out.node = with_overrides;
    return out;
  }
  const bool gen = out.kind == ConfigKind::generator;
  const config::Node& name = *with_overrides.find(gen ? "generator" : "trainer");
  if (!name.is_scalar()) config::fail_at(name.mark(), "expected a plugin name");
  try {
    out.plugin = &registry.find(name.text(), gen ? LOCI_PLUGIN_GENERATOR : LOCI_PLUGIN_TRAINER);
  } catch (const UserError& e) {
    config::fail_at(name.mark(), e.what());
  }
  out.node = out.plugin->schema().resolve(raw, overrides);
  return out;
}

ResolvedConfig resolve(const fs::path& file, const std::vector<std::string>& overrides,
                       plugins::PluginRegistry& registry) {
  const config::Node raw = config::load_file(file);
  registry = load_plugins(raw, file, overrides);
  return resolve_node(raw, overrides, registry, file.string());
}

ResolvedConfig resolve_run(const std::filesystem::path& run, plugins::PluginRegistry& registry) {
  const std::filesystem::path config = run / "config.yaml";
  if (!std::filesystem::is_regular_file(config))
    throw UserError(run.string() + ": no config.yaml; not a loci run folder");
  ResolvedConfig r = resolve(config, {}, registry);
  if (r.kind != ConfigKind::trainer) throw UserError(config.string() + ": not a training run's config (no `trainer:`)");
  return r;
}

}  // namespace loci::apps
