#pragma once
// LayerNorm(x Wᵀ + b + residual): the end of a post-norm attention sublayer (out_proj, the residual sum, norm1) in
// one pass over chunks of rows, forward and backward; and the plain linear layer the same way (fused_linear).
//
// Why: ATen runs it as an addmm whose bias is first copied into a fresh output, an add into another fresh tensor,
// and LayerNorm forward and backward, each a pass over [rows, d] in memory; backward then also sums the residual's
// gradient into the block input's. Here each chunk's product, bias, sum and normalisation happen while the chunk
// sits in cache, and only the normalised rows and their 1/std are kept for backward.
//
// Exact up to float32 rounding; chunks side by side on the threads with one-thread products, weight and LayerNorm
// gradients summed per fixed slice and then in slice order: the bytes do not depend on the thread count. Falls back
// to ATen's ops for other dtypes, devices, and under autocast.

#include <torch/types.h>

namespace loci::models {

struct LinearNormLayers {
  torch::Tensor weight;  // W [d, d_in]
  torch::Tensor bias;    // b [d]
  torch::Tensor gamma;   // LayerNorm's weight [d]
  torch::Tensor beta;    // LayerNorm's bias [d]
  double eps = 1e-5;
};

// x: [..., d_in], residual: [..., d] (same leading shape) -> [..., d].
torch::Tensor fused_linear_norm(const torch::Tensor& x, const torch::Tensor& residual, const LinearNormLayers& layers);

// x Wᵀ + b the same way, without the residual and the norm: every other linear layer of the models (linear.hpp).
// ATen's addmm runs it on one BLAS call over all rows, which on the Experiment 2/3 model's in_proj (3200 x 64 into
// 192) packs both operands at every call and runs on whatever kernel OpenBLAS chose; the chunks' products run on
// kernels generated for their shape. Falls back to torch::linear as fused_linear_norm does (and without a bias).
torch::Tensor fused_linear(const torch::Tensor& x, const torch::Tensor& weight, const torch::Tensor& bias);

}  // namespace loci::models
