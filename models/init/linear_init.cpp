#include "models/init/linear_init.hpp"

#include <torch/nn/modules/linear.h>

#include <cmath>

namespace loci::models {

namespace {

void redraw(torch::nn::LinearImpl& linear, at::Generator& generator) {
  const double bound = 1.0 / std::sqrt(static_cast<double>(linear.weight.size(1)));
  linear.weight.uniform_(-bound, bound, generator);
  if (linear.bias.defined()) linear.bias.uniform_(-bound, bound, generator);
}

}  // namespace

void redraw_linear_layers(torch::nn::Module& module, at::Generator& generator) {
  torch::NoGradGuard no_grad;
  // Constructors call this on themselves before any shared_ptr owns them, so `module` is visited by reference and
  // only its descendants through modules().
  if (auto* self = dynamic_cast<torch::nn::LinearImpl*>(&module)) redraw(*self, generator);
  for (const auto& m : module.modules(/*include_self=*/false))
    if (auto* linear = m->as<torch::nn::Linear>()) redraw(*linear, generator);
}

}  // namespace loci::models
