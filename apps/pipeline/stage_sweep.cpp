#include "apps/pipeline/stage_sweep.hpp"

#include "apps/sweep/grids.hpp"
#include "core/config/yaml_io.hpp"
#include "datasets/atomic_file.hpp"

namespace loci::apps {

std::pair<config::Node, Sweep> stage_sweep(const config::Node& train) {
  config::Node stage = train;
  std::vector<std::vector<std::string>> grids;
  for (const auto& g : stage.at("sweep").items()) {
    grids.emplace_back();
    for (const auto& entry : g.items()) grids.back().push_back(entry.text());
  }
  stage.erase("sweep");
  return {stage, plan_sweep_grids(grids)};
}

SweepRequest sweep_request(const config::Node& stage, const Sweep& sweep, const std::filesystem::path& folder) {
  datasets::make_folder(folder);
  const auto stage_file = folder / "train.yaml";
  datasets::write_file_atomically(stage_file, config::to_yaml(stage));
  SweepRequest req;
  req.config = stage_file.string();
  req.fixed_overrides = sweep.fixed;
  req.out = stage.at("out").text();
  req.jobs = static_cast<int>(stage.at("jobs").as_int());
  return req;
}

}  // namespace loci::apps
