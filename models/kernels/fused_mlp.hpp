#pragma once
// An encoder block's MLP with GELU, fc2(gelu(fc1(x))) or gelu(fc2(gelu(fc1(x)))), computed a chunk of rows at a
// time so that its widest intermediates (the hidden layer, its GELU and GELU's slope: [rows, hidden] each) stay in
// the core's cache instead of going to memory and back.
//
// Why: on the masked-regression model of Experiments 2 and 3 (3200 rows of d 64, hidden 256) each of those is a
// 3.3 MB tensor, written once and read again in backward; a multiply into such a fresh tensor took 1.34 ms where
// the same multiply into warm memory took 0.45 (one core). Here only fc1's output before GELU is kept for
// backward (one [rows, hidden] tensor), and backward recomputes GELU and its slope chunk by chunk from it.
//
// Exact up to float32 rounding. Chunks run side by side on the threads, each chunk's products on one thread; the
// weight gradients are summed per slice of chunks and then over the slices in order (chunk and slice sizes depend on
// the widths only), so the bytes are the same on any number of threads. Falls back to the unfused ATen ops for
// other dtypes, devices, and under autocast.

#include <torch/types.h>

namespace loci::models {

struct MlpLayers {
  torch::Tensor w1;  // [hidden, d_in]
  torch::Tensor b1;  // [hidden]
  torch::Tensor w2;  // [d_out, hidden]
  torch::Tensor b2;  // [d_out]
};

// With a weight: LayerNorm(x + mlp(x)), the post-norm block's second half, in the same pass (the residual sum and
// the normalisation never go to memory as tensors of their own; backward adds the residual's gradient into x's).
struct ResidualNorm {
  torch::Tensor weight;  // [d], or undefined: no residual and LayerNorm
  torch::Tensor bias;    // [d]
  double eps = 1e-5;
};

// x: [..., d_in] -> [..., d_out] (d_out = d_in with a ResidualNorm).
torch::Tensor fused_mlp(const torch::Tensor& x, const MlpLayers& layers, bool gelu_after_fc2,
                        const ResidualNorm& norm = {});

}  // namespace loci::models
