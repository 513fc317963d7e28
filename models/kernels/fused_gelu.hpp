#pragma once
// GELU (exact, erf-based, as nn.GELU) whose forward pass also computes the derivative and keeps it for backward.
//
// In a training step of the paper's model, ATen's gelu and gelu_backward took about a fifth of the time: the
// backward evaluates erf and exp again. Here one pass over the input yields gelu(x) = x Phi(x) and
// gelu'(x) = Phi(x) + x phi(x) from one shared exp, and backward is a single multiply. erf uses the same
// Abramowitz-Stegun 7.1.26 polynomial (|error| < 1.5e-7) as ATen's vectorised kernel, so values agree with
// torch::gelu to a few float32 ulps. bfloat16 inputs (the MLP under bf16 autocast) are computed in float and rounded
// once, as ATen's bf16 kernels do, with the slope kept in float32; other dtypes fall back to torch::gelu.

#include <torch/types.h>

#include <cstdint>

namespace loci::models {

torch::Tensor fused_gelu(const torch::Tensor& x);

// The elementwise kernels behind it, for other fused code (models/kernels/fused_mlp.cpp). y may be x (in place); slope
// is gelu'(x). Each reads x[i] before it writes y[i] or slope[i].
void gelu_values_and_slopes(const float* x, float* y, float* slope, std::int64_t n);
void gelu_values(const float* x, float* y, std::int64_t n);

}  // namespace loci::models
