#pragma once
// The paper's encoder, generalised: Linear token embedding, `blocks` encoder blocks, a positional encoding placed at
// every block (each its own, or one shared) or at the input only, and an optional final LayerNorm.
// Batch-first throughout: input [B, T, C] float, hidden [B, T, d].

#include "core/option.hpp"
#include "models/block.hpp"
#include "models/pe/positional_encoding.hpp"

#include <torch/nn/modules/container/modulelist.h>

#include <vector>

namespace loci::models {

struct EncoderOptions {
  LOCI_OPTION(int64_t, in_channels) = 5;
  LOCI_OPTION(int64_t, d_model) = 160;
  LOCI_OPTION(int64_t, blocks) = 4;
  LOCI_OPTION(int64_t, heads) = 1;
  // MLP hidden width = round(mlp_ratio * d_model): 640 for the paper.
  LOCI_OPTION(double, mlp_ratio) = 4.0;
  LOCI_OPTION(Activation, activation) = Activation::gelu;
  LOCI_OPTION(bool, activation_after_both) = true;
  LOCI_OPTION(NormPlacement, norm) = NormPlacement::post;
  LOCI_OPTION(double, dropout) = 0.0;
  // A LayerNorm after the last block (the paper has none; pre-norm models usually want one).
  LOCI_OPTION(bool, final_norm) = false;
  LOCI_OPTION(double, layer_norm_eps) = 1e-5;
  LOCI_OPTION(PEOptions, pe) = PEOptions();
};

class EncoderImpl : public torch::nn::Module {
 public:
  // positions: the dataset's true coordinates [T, dims] (index_positions(T) for a plain sequence). Every random
  // draw (PE tables first, then the Linear layers in order) comes from `generator`.
  EncoderImpl(const EncoderOptions& options, const torch::Tensor& positions, at::Generator generator);

  // [B, T, C] -> [B, T, d].
  torch::Tensor embed(const torch::Tensor& x);
  // h: [B, prefix + T, d], embedded tokens after any CLS prefix. With query_index ([B] int64, or [B, M]) the last block
  // computes only those rows and the result is [B, 1, d] (or [B, M, d]); otherwise [B, prefix + T, d].
  // `raw`, when given, is the input h was embedded from (no prefix): the first block may then project it more cheaply
  // (LinearInput in block.hpp).
  torch::Tensor encode(const torch::Tensor& h, int64_t prefix = 0, const torch::Tensor& query_index = {},
                       const torch::Tensor& raw = {});
  // embed then encode, no prefix.
  torch::Tensor forward(const torch::Tensor& x);

  // The PE of every placement, as pe_matrices() of the model documents.
  std::vector<torch::Tensor> pe_matrices() const;
  // Puts one [T, d] matrix per placement in place of the PE's (PositionalEncodingImpl::set_table).
  void set_pe_matrices(const std::vector<torch::Tensor>& tables);
  // Each block's position-position attention term, as position_logits() of the model documents.
  std::vector<torch::Tensor> position_logits() const;
  // Attention weights of every block from the last forward while recording: [B, H, N, N] each.
  void record_attention(bool on);
  bool recording_attention() const { return recording_; }
  std::vector<torch::Tensor> attention_maps() const;

  const EncoderOptions& options() const { return options_; }
  int64_t tokens() const { return tokens_; }
  const PositionalEncodingImpl& pe() const { return *pe_; }
  // After each optimizer step: the PE's own constraint (PositionalEncodingImpl::after_step).
  void after_optimizer_step() { pe_->after_step(); }
  EncoderBlockImpl& block(int64_t i) { return *blocks_[static_cast<size_t>(i)]; }

  torch::nn::Linear embedding{nullptr};
  torch::nn::LayerNorm final_norm{nullptr};

 private:
  BlockPE block_pe(int64_t block, int64_t prefix) const;

  EncoderOptions options_;
  int64_t tokens_ = 0;
  bool input_only_ = false, shared_ = false, recording_ = false;
  std::shared_ptr<PositionalEncodingImpl> pe_;
  std::vector<EncoderBlock> blocks_;
  torch::nn::ModuleList block_list_{nullptr};
};

TORCH_MODULE(Encoder);

}  // namespace loci::models
