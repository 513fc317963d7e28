#pragma once
// softmax(q kᵀ · scale) v for every sample and head, straight from the joint projection qkv, one sample and head at
// a time, forward and backward.
//
// Why: ATen's path materialises, per block, the scores, the softmax, their gradients ([B, H, rows, N] each) and a
// cat of the three gradients into qkv's shape, all in fresh memory. On the masked-regression model of Experiments
// 2 and 3 (100 tokens, batch 32) the cat alone took 1 ms a block and softmax forward and backward 1.3 ms. Here one
// sample's [rows, N] scores stay in cache from product to softmax to product, only the softmax weights are kept for
// backward, and backward writes q's, k's and v's gradients into one [B, N, 3d] tensor.
//
// For attention without PE hooks (no bias, rotation or causal mask), no dropout on the weights, float32 on the CPU
// outside autocast: attention.cpp decides. Each sample and head is computed on one thread with one-thread BLAS
// calls, so the bytes do not depend on the thread count.

#include <torch/types.h>

namespace loci::models {

// qkv: [B, N, 3d], q, k and v side by side, each [H, dh] within its d. rows: [B, R] int64 query rows of each sample
// (distinct), or undefined for all N. Returns [B, R or N, d], heads side by side.
torch::Tensor attention_core(const torch::Tensor& qkv, int64_t heads, double scale, const torch::Tensor& rows);

// Whether attention_core takes these inputs (else the caller uses ATen's ops).
bool attention_core_applies(const torch::Tensor& qkv);

}  // namespace loci::models
