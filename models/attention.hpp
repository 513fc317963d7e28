#pragma once
// Batch-first multi-head self-attention with the PE hooks (bias, rotation, causal mask) and an optional record of
// its attention map. Written from Linear layers because LibTorch 1.13's MultiheadAttention is sequence-first.

#include "core/option.hpp"
#include "models/pe/positional_encoding.hpp"

#include <torch/nn/modules/linear.h>

namespace loci::models {

struct AttentionOptions {
  AttentionOptions(int64_t d_model, int64_t heads) : d_model_(d_model), heads_(heads) {}
  LOCI_OPTION(int64_t, d_model);
  LOCI_OPTION(int64_t, heads);
  // On the attention weights.
  LOCI_OPTION(double, dropout) = 0.0;
};

// How a block's PE reaches its attention: which PE and placement, and how many leading tokens (CLS) carry no position.
// pe == nullptr (or active == false) means this block has no PE.
struct BlockPE {
  const PositionalEncodingImpl* pe = nullptr;
  int64_t placement = 0;
  int64_t prefix = 0;
  bool active = false;
};

class SelfAttentionImpl : public torch::nn::Module {
 public:
  explicit SelfAttentionImpl(const AttentionOptions& options);

  // x: [B, N, d] with N = prefix + T. With `query_index` ([B] int64, a token per sample, or [B, M]) only those tokens
  // query and the result is [B, 1, d] (or [B, M, d]: the last block of a model whose loss reads those rows);
  // otherwise [B, N, d].
  // `qkv`, when given, is in_proj(x) ([B, N, 3d]) computed by the caller by a cheaper route.
  torch::Tensor forward(const torch::Tensor& x, const BlockPE& pe, const torch::Tensor& query_index = {},
                        const torch::Tensor& qkv = {});
  // forward without out_proj: the heads' outputs side by side, for a caller that fuses out_proj with what follows.
  torch::Tensor attend(const torch::Tensor& x, const BlockPE& pe, const torch::Tensor& query_index = {},
                       const torch::Tensor& qkv = {});

  // While recording, each forward keeps its attention weights [B, H, rows, N] (detached).
  void record(bool on) { record_ = on; }
  const torch::Tensor& last_map() const { return last_map_; }

  const AttentionOptions& options() const { return options_; }

  // One projection for q, k and v ([3d, d], rows in that order, the layout of PyTorch's in_proj_weight).
  torch::nn::Linear in_proj{nullptr};
  torch::nn::Linear out_proj{nullptr};

 private:
  AttentionOptions options_;
  bool record_ = false;
  torch::Tensor last_map_;
};

TORCH_MODULE(SelfAttention);

}  // namespace loci::models
