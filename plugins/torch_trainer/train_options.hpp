// The torch_trainer config, read once from the resolved YAML into LibTorch-style option structs.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "models/model.hpp"
#include "plugins/api/config/node.hpp"

namespace loci::torch_trainer {

enum class Task { classification, masked_regression };

struct TrainOptions {
  std::string data, out;
  std::uint64_t seed = 0;
  std::string task = "auto";  // resolved against the dataset by the trainer
  std::string input = "auto", label = "label", target_token = "target_cell";
  std::int64_t classes = 0;
  std::string train_split = "train";
  std::vector<std::string> eval_splits;

  std::string optimizer = "adamw";
  double lr = 1e-4, weight_decay = 0, momentum = 0.9;
  std::string schedule = "constant";
  std::int64_t warmup_steps = 0;
  double min_lr = 0, clip_grad_norm = 0;
  std::int64_t epochs = 4000, steps = 0, batch_size = 128, eval_batch_size = 512, eval_every = 200;
  int threads = 0;
  int micro_batches = 2;  // parts of each batch whose gradients are summed (models/micro_batches.hpp)
  std::int64_t dist_timeout = 600;  // seconds; data-parallel runs only
  std::int64_t early_stop_patience = 0;
  std::string early_stop_split = "test";
  double early_stop_min_delta = 0;
  std::string device = "cpu";
  std::string precision = "fp32";  // or bf16: autocast in the training step (precision.hpp)
  bool save_attention = false, progress = true;
  std::string attention_split;  // "" = human, else test, else the first evaluated split

  models::ModelOptions model;  // task-dependent sizes (channels, classes) are filled in from the dataset
};

TrainOptions read_options(const config::Node& resolved);

}  // namespace loci::torch_trainer
