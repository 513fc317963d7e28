// Every key the torch_trainer takes, with the paper's Experiment 1 as the defaults.
#include "trainer_schema.hpp"

#include <string>

#include "models/init/init_registry.hpp"
#include "models/pe/positional_encoding.hpp"

namespace loci::torch_trainer {

namespace {

const char* const kSchemaTemplate = R"yaml(
task:
  type: {type: enum, values: [auto, classification, masked_regression], default: auto,
         doc: "auto: classification when the dataset has `label`, masked-token regression otherwise"}
  input: {type: string, default: auto, doc: "per-sample array of token features [token, channel]; auto: tokens, else activity"}
  label: {type: string, default: label, doc: "per-sample class label array (classification)"}
  target_token: {type: string, default: target_cell, doc: "per-sample array giving the target token (pooling: target)"}
  classes: {type: int, default: 0, min: 0, doc: "number of classes; 0 = from the dataset (N of the LST grid, or max label + 1)"}
  train_split: {type: string, default: train, doc: "split to train on"}
  eval_splits: {type: list, of: string, default: [], doc: "splits to evaluate; [] = every split"}
model:
  d_model: {type: int, default: 160, min: 1, doc: "model width"}
  blocks: {type: int, default: 4, min: 1, doc: "encoder blocks"}
  heads: {type: int, default: 1, min: 1, doc: "attention heads"}
  mlp_ratio: {type: float, default: 4.0, min: 0.01, doc: "MLP hidden width / d_model"}
  activation: {type: enum, values: [gelu, relu], default: gelu, doc: "MLP activation"}
  activation_after_both: {type: bool, default: true, doc: "activation after both MLP linears (the paper) or only the first"}
  norm: {type: enum, values: [post, pre], default: post, doc: "LayerNorm placement (the paper: post)"}
  final_norm: {type: bool, default: false, doc: "a LayerNorm after the last block"}
  dropout: {type: float, default: 0.0, min: 0, max: 1, doc: "dropout in attention and MLP"}
  pooling: {type: enum, values: [last, target, mean, cls], default: last,
            doc: "classification readout: last token (the paper), the target token, the mean, or a CLS token"}
  mask_ratio_train: {type: float, default: 0.5, min: 0, max: 1, doc: "masked regression: share of tokens masked in training"}
  mask_ratio_eval: {type: float, default: 0.9, min: 0, max: 1, doc: "masked regression: share masked at evaluation"}
  pe:
    type: {type: enum, values: [@PE_TYPES@], default: learned, doc: "positional encoding (models/pe/, one file each)"}
    placement: {type: enum, values: [per_block, input, shared], default: per_block,
                doc: "each block adds its own PE (the paper), one PE at the input, or one PE shared by all blocks"}
    init:
      name: {type: enum, values: [@INIT_NAMES@], default: normal, doc: "initialisation of learned and random PEs (models/init/)"}
      std: {type: float, default: 0.2, min: 0, doc: "sigma of normal / truncated_normal (the paper's sigma)"}
      a: {type: float, default: 0.1, min: 0, doc: "half-width of uniform"}
      gain: {type: float, default: 1.0, doc: "scale of orthogonal"}
      scale: {type: float, default: 1.0, doc: "scale of from_sinusoidal / from_coordinates"}
    base: {type: float, default: 10000.0, min: 1, doc: "sinusoid / rotary base"}
    coordinate_scale: {type: float, default: 1.0, min: 0, doc: "scale applied to true coordinates before sinusoids"}
    sinusoidal_dropout: {type: float, default: 0.0, min: 0, max: 1, doc: "dropout on fixed sinusoidal PEs (the authors' code: 0.1)"}
    dropout_at_eval: {type: bool, default: false, doc: "keep that dropout on at evaluation (the authors' code: true)"}
    variant: {type: enum, values: [bias, music_causal], default: bias,
              doc: "relative PE: learned attention bias, or the authors' Music-Transformer relative attention with a causal mask"}
    offsets: {type: enum, values: [index, grid], default: index, doc: "relative PE offsets: token index or grid (row, column)"}
    max_distance: {type: int, default: 0, min: 0, doc: "relative PE: clip offsets (0 = no clipping)"}
train:
  optimizer: {type: enum, values: [adamw, sgd], default: adamw, doc: "optimizer"}
  lr: {type: float, default: 0.0001, min: 0, doc: "learning rate"}
  weight_decay: {type: float, default: 0.0, min: 0, doc: "weight decay"}
  momentum: {type: float, default: 0.9, min: 0, doc: "SGD momentum"}
  schedule: {type: enum, values: [constant, warmup_cosine], default: constant, doc: "learning-rate schedule"}
  warmup_steps: {type: int, default: 0, min: 0, doc: "warmup steps of warmup_cosine"}
  min_lr: {type: float, default: 0.0, min: 0, doc: "final learning rate of warmup_cosine"}
  clip_grad_norm: {type: float, default: 0.0, min: 0, doc: "clip the gradient norm to this (0 = off)"}
  epochs: {type: int, default: 4000, min: 1, doc: "epochs (the paper: 4000)"}
  steps: {type: int, default: 0, min: 0, doc: "stop after this many steps instead (0 = use epochs)"}
  batch_size: {type: int, default: 128, min: 1, doc: "batch size"}
  threads: {type: int, default: 0, min: 0, doc: "threads (training: one per micro-batch; evaluation: all); 0 = all cores. The results do not depend on it"}
  micro_batches: {type: int, default: 2, min: 1,
                  doc: "each batch's gradient as the sum of this many equal parts' gradients, the parts computed side by side, one thread each (training uses min(micro_batches, threads) cores; faster than splitting every product on small models); the results depend on it, never on threads"}
  dist_timeout: {type: int, default: 600, min: 1,
                 doc: "data-parallel runs (torchrun-style launch): seconds a rank waits for the others (rendezvous, each all-reduce, rank 0's evaluation) before it stops with an error"}
  eval_every: {type: int, default: 200, min: 1, doc: "evaluate every this many epochs (and at the end)"}
  eval_batch_size: {type: int, default: 512, min: 1, doc: "batch size of evaluation"}
  early_stop_patience: {type: int, default: 0, min: 0, doc: "stop after this many evaluations without improvement (0 = off)"}
  early_stop_split: {type: string, default: test, doc: "split whose loss early stopping watches"}
  early_stop_min_delta: {type: float, default: 0.0, min: 0, doc: "smallest loss decrease that counts as improvement"}
  device: {type: enum, values: [cpu, cuda], default: cpu, doc: "cpu, or cuda when LibTorch was built with CUDA"}
  precision: {type: enum, values: [fp32, bf16], default: fp32,
              doc: "bf16: the training forward/backward under bfloat16 autocast (parameters, optimizer and evaluation stay fp32; not the paper's numerics)"}
  save_attention: {type: bool, default: false,
                   doc: "write attention.h5: each block's attention maps averaged over the samples of attention_split, at every evaluation"}
  attention_split: {type: string, default: "",
                    doc: "split whose samples the saved attention maps average; '' = human if the dataset has it, else test, else the first evaluated split"}
  progress: {type: bool, default: true, doc: "progress bar on a terminal, plain lines in logs"}
jobs: {type: int, default: 1, min: 1, doc: "sweeps (-m): runs in parallel processes, each with cores/jobs threads"}
)yaml";

std::string join(const std::vector<std::string>& names) {
  std::string s;
  for (const auto& n : names) s += (s.empty() ? "" : ", ") + n;
  return s;
}

void substitute(std::string& text, const std::string& key, const std::string& value) {
  const auto at = text.find(key);
  if (at != std::string::npos) text.replace(at, key.size(), value);
}

}  // namespace

// The choices of model.pe.type and model.pe.init.name are whatever the registries hold, so a new PE or init file
// is accepted by the config without touching this schema.
const char* schema_text() {
  static const std::string text = [] {
    std::string s = kSchemaTemplate;
    substitute(s, "@PE_TYPES@", join(models::PERegistry::names()));
    substitute(s, "@INIT_NAMES@", join(models::InitRegistry::names()));
    return s;
  }();
  return text.c_str();
}

}  // namespace loci::torch_trainer
