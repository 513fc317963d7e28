#pragma once
// The whole model: encoder + task head, built from one plain options struct (the trainer maps YAML onto it).

#include "core/option.hpp"
#include "models/encoder.hpp"
#include "models/heads.hpp"

#include <vector>

namespace loci::models {

struct ModelOptions {
  LOCI_OPTION(EncoderOptions, encoder) = EncoderOptions();
  LOCI_OPTION(Task, task) = Task::classification;
  LOCI_OPTION(ClassificationOptions, classification) = ClassificationOptions();
  LOCI_OPTION(MaskedRegressionOptions, masked_regression) = MaskedRegressionOptions();
  // The last block computes only the rows the loss reads after its attention: for a classification readout of one
  // token (last, target, cls) that token's row, about a fifth less work for the paper's model; for masked regression
  // the masked tokens' rows (their predictions; the visible tokens' rows of the output are then 0), about a tenth
  // less at half the tokens masked. The same outputs and gradients up to float rounding; switched off by itself
  // while attention maps are recorded, so that every map stays [B, H, N, N].
  LOCI_OPTION(bool, prune_last_block) = true;
  // The first block's input projection computed from the input channels (LinearInput, models/block.hpp): exact up to
  // float32 rounding; classification without a CLS token only.
  LOCI_OPTION(bool, factor_first_projection) = true;
};

struct ModelInput {
  torch::Tensor x;             // [B, T, C] float
  torch::Tensor target_index;  // [B] int64, classification with pooling "target"
  torch::Tensor mask;          // [B, T] bool, masked regression (sample_mask draws one); with pooling "every", the
                               // tokens the dense loss counts (undefined: all)
  // [B, T, d]: added to the token embeddings before anything else (the paper's robustness test: Gaussian noise on
  // the embeddings at test time). Undefined: none.
  torch::Tensor embedding_noise;
};

struct ModelOutput {
  torch::Tensor output;  // logits [B, classes], or predictions [B, T, channels]
  // With pooling "every": every token's logits [B, T, classes], which the loss reads; `output` is then the row of
  // the target token (target_index, else the last), so accuracy reads the target cell from its own token.
  torch::Tensor dense;
  torch::Tensor hidden;  // the encoder's last hidden state ([B, rows, d] when the last block was pruned)
};

class ModelImpl : public torch::nn::Module {
 public:
  ModelImpl(const ModelOptions& options, const torch::Tensor& positions, at::Generator generator);

  ModelOutput forward(const ModelInput& input);
  // Shorthands: logits [B, classes]; predictions [B, T, channels].
  torch::Tensor classify(const torch::Tensor& x, const torch::Tensor& target_index = {});
  torch::Tensor reconstruct(const torch::Tensor& x, const torch::Tensor& mask);
  // Cross-entropy against class labels [B] int64, or masked_mse against targets [B, T, channels] on input.mask.
  // label_smoothing (classification): the targets' share moved to the uniform distribution.
  torch::Tensor loss(const ModelOutput& output, const ModelInput& input, const torch::Tensor& target,
                     double label_smoothing = 0) const;
  // A mask for a batch at the ratio of the current mode (train or eval).
  torch::Tensor sample_mask(int64_t batch, at::Generator& generator) const;

  // One tensor per PE placement (blocks for per_block, else 1), detached copies:
  //   additive PEs (learned, random_fixed, sinusoidal_*): the [T, d] matrix added at the block's input, fixed ones
  //     included, without the (random) sinusoidal dropout;
  //   relative: its table, [H, offsets] (bias) or [H, L, dh] (music_causal embeddings, row L-1 is offset 0);
  //   alibi: its fixed bias [H, T, T];
  //   none, rope, rope_axial: an empty tensor (numel 0).
  std::vector<torch::Tensor> pe_matrices() const { return encoder->pe_matrices(); }
  // Puts one [T, d] matrix per placement in place of the PE's tables: an intervention (models/interventions/).
  // std::invalid_argument for a PE without such matrices or a wrong count or shape.
  void set_pe_matrices(const std::vector<torch::Tensor>& tables) { encoder->set_pe_matrices(tables); }

  // Per block, the part of its attention logits that positions alone make, [H, T, T]: the PE the block adds,
  // projected through the block's query and key weights, (P Wq_h^T)(P Wk_h^T)^T / sqrt(dh) (TUPE's
  // position-position term, without biases and without the tokens' own content). Exact for post-norm blocks (the
  // paper's), whose attention reads the PE-added input as is; for pre-norm blocks it leaves out the LayerNorm. Where
  // the PE carries the geometry it shows in P; where the block learned to read positions, in Wq and Wk. An empty
  // tensor (numel 0) for a block that adds no [T, d] PE (none, rope, relative, alibi; input_only past block 0).
  std::vector<torch::Tensor> position_logits() const { return encoder->position_logits(); }

  // While recording, each forward keeps every block's attention weights; maps are [B, H, N, N] with N = prefix + T
  // (the CLS token first when pooling is cls).
  void record_attention(bool on) { encoder->record_attention(on); }
  std::vector<torch::Tensor> attention_maps() const { return encoder->attention_maps(); }
  // A forward without gradients that records and returns the maps, leaving recording as it was.
  std::vector<torch::Tensor> attention_maps(const ModelInput& input);

  // Call after every optimizer step (a PE that constrains its tables applies the constraint here).
  void after_optimizer_step() { encoder->after_optimizer_step(); }

  const ModelOptions& options() const { return options_; }
  int64_t tokens() const { return encoder->tokens(); }
  int64_t prefix() const { return classification ? classification->prefix() : 0; }

  Encoder encoder{nullptr};
  ClassificationHead classification{nullptr};
  MaskedRegressionHead masked_regression{nullptr};

 private:
  ModelOptions options_;
};

TORCH_MODULE(Model);

// Builds the model; every random draw comes from `generator` (or a generator seeded with `seed`), so equal seeds
// give equal models.
Model make_model(const ModelOptions& options, const torch::Tensor& positions, at::Generator generator);
Model make_model(const ModelOptions& options, const torch::Tensor& positions, uint64_t seed);

}  // namespace loci::models
