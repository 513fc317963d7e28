#include "apps/pipeline/dry_run.hpp"

#include <filesystem>
#include <fstream>
#include <iostream>

#include <nlohmann/json.hpp>

#include "apps/pipeline/generate_stage.hpp"
#include "apps/resolve.hpp"
#include "core/config/identity.hpp"
#include "core/config/yaml_io.hpp"
#include "core/error.hpp"

namespace loci::apps {

namespace fs = std::filesystem;

std::string dry_run_generate(const config::Node& resolved, const plugins::PluginRecord& plugin,
                             const plugins::PluginRegistry& registry) {
  const fs::path out = resolved.at("out").text();
  std::string made = "new (";
  for (const auto& [name, count] : resolved.at("splits").entries())
    made += (made.size() > 5 ? ", " : "") + name + " " + count.text();
  made += " samples)";
  if (fs::exists(out / ".loci-journal"))
    return out.string() + ": interrupted; resumes, keeping every shard that verifies";
  std::ifstream in(out / "index.json");
  if (!in) return out.string() + ": " + made;
  nlohmann::json index;
  try {
    index = nlohmann::json::parse(in);
  } catch (const std::exception&) {
    return out.string() + ": refused: index.json is not readable JSON";
  }
  // The same comparison a resumed generation makes: what decides the bytes, as the dataset recorded it.
  const std::string wanted = recorded_config(resolved, *registry.make_generator(plugin.name));
  if (index.value("generator", "") != plugin.name || index.value("generator_version", "") != plugin.version ||
      index.value("config_yaml", "") != wanted)
    return out.string() + ": refused: it holds a dataset made with other settings (generate into another `out`)";
  return out.string() + ": complete; kept (" + std::to_string(index.value("shards", nlohmann::json::array()).size()) +
         " shards, verified when the stage runs)";
}

bool dry_run_refused(const std::string& line) { return line.find(": refused: ") != std::string::npos; }

std::size_t dry_run_sweep(const config::Node& stage, const std::string& where, const Sweep& sweep,
                          const std::string& out, plugins::PluginRegistry& registry) {
  const std::size_t n = sweep.points.size();
  std::size_t refused = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const SweepPoint& p = sweep.points[i];
    std::vector<std::string> overrides = sweep.fixed;
    overrides.insert(overrides.end(), p.overrides.begin(), p.overrides.end());
    overrides.push_back("out=" + (fs::path(out) / p.name).string());
    const ResolvedConfig r = resolve_node(stage, overrides, registry, where);
    std::cout << "[" << i + 1 << "/" << n << "] " << std::flush;
    plugins::TrainRequest req;
    req.dry_run = true;
    req.resume = true;  // as a sweep starts its points: a finished or interrupted one is continued, not refused
    req.dry_run_refusals = &refused;
    registry.make_trainer(r.plugin->name)->train(r.node, req);
  }
  return refused;
}

}  // namespace loci::apps
