#pragma once
// Many small matrix products at once: [B, H, m, k] x [B, H, k, n] -> [B, H, m, n], with autograd.
//
// Attention over 16 tokens multiplies 128 or more [16 x 160] blocks per call. ATen 1.13's CPU bmm runs them one by
// one through its full dispatcher (three selects and an addmm per matrix, on one thread); measured on the paper's
// model that made each call about three times slower than its arithmetic. Here each product is one cblas_sgemm
// call on the operands' own strides (transposed views need no copy), spread over threads with at::parallel_for.
// Inputs that are not float32 CPU tensors of rank 4 go to torch::matmul.
// `scale` multiplies the product inside the same call (BLAS's alpha), as attention's 1/sqrt(d) does: a separate
// multiply would write and read another [B, H, m, n] tensor, forward and backward.

#include <torch/types.h>

namespace loci::models {

torch::Tensor batched_matmul(const torch::Tensor& a, const torch::Tensor& b, double scale = 1.0);

}  // namespace loci::models
