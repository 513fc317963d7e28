#pragma once
// Redraws Linear layers from the caller's generator, so that one seed fixes a whole model (LibTorch's own
// initialisation draws from the global generator, which a trainer also uses for dropout and data order).

#include <ATen/core/Generator.h>
#include <torch/nn/module.h>

namespace loci::models {

// Every Linear below `module` (itself included), in registration order: weight and bias ~ U(-1/sqrt(fan_in),
// 1/sqrt(fan_in)), the distribution of PyTorch's default reset (kaiming_uniform with a = sqrt(5)).
void redraw_linear_layers(torch::nn::Module& module, at::Generator& generator);

}  // namespace loci::models
