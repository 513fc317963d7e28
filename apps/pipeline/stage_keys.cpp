#include "apps/pipeline/stage_keys.hpp"

#include "core/config/identity.hpp"
#include "core/config/overrides.hpp"
#include "core/error.hpp"

namespace loci::apps {

namespace {

bool ends_with_parts(const std::string& key, const std::string& path) {
  return key.size() > path.size() && key.compare(key.size() - path.size(), path.size(), path) == 0 &&
         key[key.size() - path.size() - 1] == '.';
}

// "'a'", "'a' or 'b'", "'a', 'b' or 'c'"
std::string alternatives(const std::vector<std::string>& keys) {
  std::string out;
  for (std::size_t i = 0; i < keys.size(); ++i)
    out += (i == 0 ? "" : i + 1 == keys.size() ? " or " : ", ") + ("'" + keys[i] + "'");
  return out;
}

}  // namespace

std::optional<config::Schema> stage_plugin_schema(const config::Node& stage, const std::vector<std::string>& args,
                                                  plugins::PluginRegistry& registry) {
  try {
    config::Node named = stage;
    config::apply_overrides(named, args);
    for (const auto& [key, kind] : {std::pair{"generator", LOCI_PLUGIN_GENERATOR}, {"trainer", LOCI_PLUGIN_TRAINER}}) {
      const config::Node* name = named.find(key);
      if (!name || !name->is_scalar()) continue;
      return registry.find(name->text(), kind).schema();
    }
  } catch (const UserError&) {
  }
  return std::nullopt;
}

std::vector<std::string> keys_ending_with(const config::Schema& schema, const std::string& path) {
  std::vector<std::string> keys;
  for (const auto& [key, value] : config::flatten(schema.defaults())) {
    // A path into a field's own mapping or list (splits.train, a map's new key) is the field's, not a near miss.
    if (key == path || path.rfind(key + ".", 0) == 0) return {};
    if (ends_with_parts(key, path)) keys.push_back(key);
  }
  return keys;
}

void check_stage_keys(const std::vector<std::string>& args, const std::string& stage, const config::Schema& schema) {
  for (const auto& arg : args) {
    const config::Override o = config::parse_override(arg);
    if (schema.has(o.path)) continue;
    std::vector<std::string> full = keys_ending_with(schema, o.path);
    if (full.empty()) continue;  // the schema's own error, with the nearest word, is the better one
    for (auto& k : full) k = stage + "." + k;
    throw UserError("command line '" + stage + "." + arg + "': the " + stage + " stage has no key '" + o.path +
                    "'; did you mean " + alternatives(full) + "?");
  }
}

std::string pipeline_key_hint(const std::string& arg,
                              const std::vector<std::pair<std::string, std::optional<config::Schema>>>& stages) {
  const config::Override o = config::parse_override(arg);
  std::vector<std::string> full;
  for (const auto& [stage, schema] : stages) {
    if (!schema) continue;
    if (schema->has(o.path)) full.push_back(stage + "." + o.path);
    for (const auto& k : keys_ending_with(*schema, o.path)) full.push_back(stage + "." + k);
  }
  if (full.empty()) return "";
  return "command line '" + arg + "': the pipeline has no key '" + o.path +
         "'; its stages' keys go below them: did you mean " + alternatives(full) + "?";
}

}  // namespace loci::apps
