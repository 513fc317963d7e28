#pragma once
// Task heads on top of the encoder: token classification (the Latin Square Task) and masked-token regression
// (networks, parcels), with the mask helpers the trainer needs.

#include <ATen/core/Generator.h>
#include <torch/nn/module.h>
#include <torch/nn/modules/linear.h>

#include <string>

#include "core/option.hpp"
#include "models/choices.hpp"

namespace loci::models {

struct ClassificationOptions {
  LOCI_OPTION(int64_t, classes) = 4;
  // Which hidden state the Linear(d -> classes) reads:
  //   last   the last token (the paper: index T-1, whatever cell is the target);
  //   target a token given per sample (ModelInput::target_index, [B] int64 in 0..T-1);
  //   mean   the mean over the T tokens;
  //   cls    a learned CLS token prepended to the sequence. The CLS token carries no position: the PE covers the T
  //          data tokens only (zero additive PE, zero attention bias, no rotation for CLS), so pe_matrices() stay
  //          [T, d] and comparable with the true positions. A causal PE cannot be combined with cls (CLS would
  //          see only itself).
  //   every  each token's own hidden state, read by the same Linear: logits [B, T, classes], for a dense objective
  //          in which every token (every cell of the LST) is a target of its own.
  LOCI_OPTION(Pooling, pooling) = Pooling::last;
};

class ClassificationHeadImpl : public torch::nn::Module {
 public:
  ClassificationHeadImpl(const ClassificationOptions& options, int64_t d_model, at::Generator generator);

  // Number of tokens this head puts before the data tokens (1 for cls).
  int64_t prefix() const { return cls_token.defined() ? 1 : 0; }
  // h [B, T, d] -> [B, prefix + T, d].
  torch::Tensor prepend(const torch::Tensor& h) const;
  // The one token per sample the readout needs, as an index into the prefix + T sequence ([B] int64), or undefined
  // for mean pooling, which needs them all.
  torch::Tensor query_index(int64_t batch, int64_t tokens, const torch::Tensor& target_index) const;
  // hidden: [B, prefix + T, d], or [B, 1, d] when the encoder computed only query_index's rows. -> logits [B, classes]
  // ([B, T, classes] for every).
  torch::Tensor forward(const torch::Tensor& hidden, const torch::Tensor& target_index = {});

  const ClassificationOptions& options() const { return options_; }
  torch::nn::Linear readout{nullptr};
  torch::Tensor cls_token;  // [d], only for cls pooling

 private:
  ClassificationOptions options_;
  Pooling pooling_ = Pooling::last;
};

TORCH_MODULE(ClassificationHead);

struct MaskedRegressionOptions {
  // Output channels; 0 means the encoder's in_channels (reconstruct the input).
  LOCI_OPTION(int64_t, channels) = 0;
  // Fraction of tokens masked per sample in training and in evaluation.
  LOCI_OPTION(double, mask_ratio_train) = 0.5;
  LOCI_OPTION(double, mask_ratio_eval) = 0.9;
};

class MaskedRegressionHeadImpl : public torch::nn::Module {
 public:
  MaskedRegressionHeadImpl(const MaskedRegressionOptions& options, int64_t d_model, int64_t channels,
                           at::Generator generator);

  // Replaces the embedded tokens where mask [B, T] (bool) is true by the learned mask embedding. The mask acts after
  // the token embedding, so a masked token's values never reach the encoder.
  torch::Tensor apply_mask(const torch::Tensor& embedded, const torch::Tensor& mask) const;
  // hidden [B, T, d] -> prediction [B, T, channels].
  torch::Tensor forward(const torch::Tensor& hidden);

  const MaskedRegressionOptions& options() const { return options_; }
  torch::nn::Linear output{nullptr};
  torch::Tensor mask_embedding;  // [d]

 private:
  MaskedRegressionOptions options_;
};

TORCH_MODULE(MaskedRegressionHead);

// A [B, T] bool mask with exactly round(ratio * T) true entries per sample, drawn from `generator`.
torch::Tensor sample_token_mask(int64_t batch, int64_t tokens, double ratio, at::Generator& generator);

// Cross-entropy of per-token logits [B, T, C] against per-token classes [B, T] (int64), averaged over the tokens
// where `counted` [B, T] (bool) is true, or over every token when it is undefined.
torch::Tensor dense_cross_entropy(const torch::Tensor& logits, const torch::Tensor& classes,
                                  const torch::Tensor& counted, double label_smoothing = 0);

// Mean squared error over the masked tokens only: sum over masked tokens and channels of (pred - target)^2, divided
// by (masked tokens * channels). pred, target: [B, T, C]; mask: [B, T] bool. Zero when nothing is masked.
torch::Tensor masked_mse(const torch::Tensor& prediction, const torch::Tensor& target, const torch::Tensor& mask);

}  // namespace loci::models
