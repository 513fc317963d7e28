#pragma once
// A Linear layer applied through ATen's own linear: LibTorch 1.13's C++ torch::nn::Linear multiplies a [B, T, d]
// input by matmul and then adds the bias in a second pass, where ATen's linear (what Python's nn.Linear runs) folds
// the bias into one addmm over the flattened rows and differentiates it as one. Measured on the masked-regression
// model of Experiments 2 and 3 (d 64, 100 tokens): the products took a sixth longer through the module's forward.

// Float32 CPU layers then run in chunks of rows on generated kernels (fused_linear), everything else on ATen's.

#include "models/kernels/fused_linear_norm.hpp"

#include <torch/nn/modules/linear.h>

namespace loci::models {

inline torch::Tensor linear(const torch::nn::Linear& layer, const torch::Tensor& x) {
  return fused_linear(x, layer->weight, layer->bias);
}

}  // namespace loci::models
