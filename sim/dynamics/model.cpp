#include "sim/dynamics/model.hpp"

#include <stdexcept>

namespace loci::sim::dynamics {

LOCI_DEFINE_REGISTRY(ModelInfo, "model")

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

std::unique_ptr<Model> make_model(const std::string& name, const std::map<std::string, double>& params) {
  const ModelInfo& info = model_info(name);
  return info.make(resolve_params(info.params, params, "model '" + name + "'"));
}

}  // namespace loci::sim::dynamics
