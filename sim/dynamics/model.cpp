#include "sim/dynamics/model.hpp"

#include <mutex>
#include <stdexcept>

namespace loci::sim::dynamics {

Model::~Model() = default;

void Batch::couple(const double* x, std::size_t variable, double* y) const {
  if (!coupling->has_delays()) return coupling->apply(x, y, lanes);
  // Without the past, a delayed coupling would quietly become an instantaneous one.
  if (!history) throw std::logic_error("the coupling has delays but the batch carries no state history");
  coupling->apply_delayed(x, *history, variable * block(), stage, y, lanes);
}

void Model::diffusion(const Batch&, const double*, double*) const {
  throw std::logic_error("this model's noise enters its drift; it has no diffusion term");
}

namespace {

std::map<std::string, ModelInfo>& registry() {
  static std::map<std::string, ModelInfo> r;
  return r;
}

std::mutex& registry_mutex() {
  static std::mutex m;
  return m;
}

}  // namespace

void register_model(ModelInfo info) {
  std::lock_guard<std::mutex> lock(registry_mutex());
  const std::string name = info.name;
  if (!registry().emplace(name, std::move(info)).second)
    throw std::logic_error("model '" + name + "' registered twice");
}

const ModelInfo& model_info(const std::string& name) {
  std::lock_guard<std::mutex> lock(registry_mutex());
  const auto it = registry().find(name);
  if (it != registry().end()) return it->second;
  std::string known;
  for (const auto& [n, info] : registry()) known += (known.empty() ? "" : ", ") + n;
  throw std::invalid_argument("unknown model '" + name + "' (known: " + known + ")");
}

std::vector<std::string> model_names() {
  std::lock_guard<std::mutex> lock(registry_mutex());
  std::vector<std::string> out;
  for (const auto& [name, info] : registry()) out.push_back(name);
  return out;
}

std::unique_ptr<Model> make_model(const std::string& name, const std::map<std::string, double>& params) {
  const ModelInfo& info = model_info(name);
  return info.make(resolve_params(info.params, params, "model '" + name + "'"));
}

}  // namespace loci::sim::dynamics
