// The optimizer a config names (AdamW or SGD), over the model's parameters.
#pragma once

#include <memory>

#include <torch/torch.h>

#include "models/fused_adamw.hpp"
#include "train_options.hpp"

namespace loci::torch_trainer {

inline std::unique_ptr<torch::optim::Optimizer> make_optimizer(const TrainOptions& opt,
                                                               std::vector<torch::Tensor> params) {
  if (opt.optimizer == "sgd")
    return std::make_unique<torch::optim::SGD>(
        params, torch::optim::SGDOptions(opt.lr).momentum(opt.momentum).weight_decay(opt.weight_decay));
  return std::make_unique<models::FusedAdamW>(params, torch::optim::AdamWOptions(opt.lr).weight_decay(opt.weight_decay));
}

}  // namespace loci::torch_trainer
