#pragma once
// One encoder block: the PE added at its input, self-attention, an MLP, LayerNorms after (paper) or before the
// residual sums. With activation_after_both the MLP is act(fc2(act(fc1(x)))), the paper's model.

#include "core/option.hpp"
#include "models/attention.hpp"
#include "models/choices.hpp"

#include <torch/nn/modules/normalization.h>

namespace loci::models {

struct BlockOptions {
  LOCI_OPTION(int64_t, d_model) = 160;
  LOCI_OPTION(int64_t, heads) = 1;
  LOCI_OPTION(int64_t, mlp_hidden) = 640;
  // gelu (exact, erf-based, as PyTorch's nn.GELU) or relu.
  LOCI_OPTION(Activation, activation) = Activation::gelu;
  LOCI_OPTION(bool, activation_after_both) = true;
  // post: x = LN(attn(h) + h); x = LN(mlp(x) + x) (paper). pre: x = h + attn(LN(h)); x = x + mlp(LN(x)).
  LOCI_OPTION(NormPlacement, norm) = NormPlacement::post;
  LOCI_OPTION(double, dropout) = 0.0;
  LOCI_OPTION(double, layer_norm_eps) = 1e-5;
};

// A block input known to be the Linear embedding x Eᵀ + b of few channels (C much smaller than d) plus the block's PE.
// The block then computes its first projection from the C channels: in_proj(x Eᵀ + b + pe) = x (W E)ᵀ + ((b + pe) Wᵀ
// + c), equal to the plain product up to float32 rounding, at C instead of d multiply-adds per token and output
// (on the paper's model a step's FLOPs drop by about 7%).
struct LinearInput {
  torch::Tensor x;       // [B, T, C]
  torch::Tensor weight;  // E: [d, C]
  torch::Tensor bias;    // b: [d], or undefined
};

class EncoderBlockImpl : public torch::nn::Module {
 public:
  explicit EncoderBlockImpl(const BlockOptions& options);

  // x: [B, N, d]. The block's PE (if active) is added first. With query_index ([B] int64, or [B, M]: M tokens per
  // sample) only those rows are computed past the attention: [B, 1, d] (or [B, M, d]). Otherwise [B, N, d].
  // `input`, when given, says that x is input.x Eᵀ + b (see LinearInput); used where it is exact (post-norm, no
  // prefix, no dropout between embedding and attention), ignored elsewhere.
  torch::Tensor forward(const torch::Tensor& x, const BlockPE& pe, const torch::Tensor& query_index = {},
                        const LinearInput& input = {});

  const BlockOptions& options() const { return options_; }

  SelfAttention attention{nullptr};
  torch::nn::LayerNorm norm1{nullptr}, norm2{nullptr};
  torch::nn::Linear fc1{nullptr}, fc2{nullptr};

 private:
  torch::Tensor activate(const torch::Tensor& x) const;
  torch::Tensor mlp(const torch::Tensor& x);
  // in_proj of the block input from a LinearInput, or undefined where that is not exact.
  torch::Tensor projected_input(const BlockPE& pe, const LinearInput& input) const;

  BlockOptions options_;
  bool gelu_ = true;
  bool post_norm_ = true;
};

TORCH_MODULE(EncoderBlock);

}  // namespace loci::models
