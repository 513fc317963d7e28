// The optimizer a config names (AdamW or SGD), over the model's parameters: one group, or two when the PE has
// settings of its own (train.pe.weight_decay, train.pe.lr_scale): every other parameter first, then the PE's.
#pragma once

#include <memory>
#include <set>

#include <torch/torch.h>

#include "models/kernels/fused_adamw.hpp"
#include "models/model.hpp"
#include "train_options.hpp"

namespace loci::torch_trainer {

// Whether the PE's parameters need a group of their own. A run that sets none of train.pe.* keeps the one group it
// always had: the same optimizer, the same checkpoints, the same bytes.
inline bool pe_has_own_group(const TrainOptions& opt) {
  return (opt.pe_weight_decay && *opt.pe_weight_decay != opt.weight_decay) || opt.pe_lr_scale != 1.0;
}

inline std::unique_ptr<torch::optim::OptimizerOptions> group_options(const TrainOptions& opt, double weight_decay) {
  if (opt.optimizer == Optimizer::sgd)
    return std::make_unique<torch::optim::SGDOptions>(
        torch::optim::SGDOptions(opt.lr).momentum(opt.momentum).weight_decay(weight_decay));
  return std::make_unique<torch::optim::AdamWOptions>(
      torch::optim::AdamWOptions(opt.lr).weight_decay(weight_decay).eps(opt.adam_eps));
}

inline std::unique_ptr<torch::optim::Optimizer> make_optimizer(const TrainOptions& opt, models::Model& model) {
  std::vector<torch::optim::OptimizerParamGroup> groups;
  const std::vector<torch::Tensor> all = model->parameters();
  if (!pe_has_own_group(opt)) {
    groups.emplace_back(all, group_options(opt, opt.weight_decay));
  } else {
    std::set<const void*> pe;
    for (const auto& p : model->encoder->pe().parameters()) pe.insert(p.unsafeGetTensorImpl());
    std::vector<torch::Tensor> rest, own;
    for (const auto& p : all) (pe.count(p.unsafeGetTensorImpl()) ? own : rest).push_back(p);
    groups.emplace_back(rest, group_options(opt, opt.weight_decay));
    groups.emplace_back(own, group_options(opt, opt.pe_weight_decay.value_or(opt.weight_decay)));
  }
  if (opt.optimizer == Optimizer::sgd)
    return std::make_unique<torch::optim::SGD>(std::move(groups), torch::optim::SGDOptions(opt.lr));
  return std::make_unique<models::FusedAdamW>(std::move(groups), torch::optim::AdamWOptions(opt.lr).eps(opt.adam_eps));
}

// The schedule's learning rate at this step on every group; the PE's group at train.pe.lr_scale times it.
inline void set_learning_rate(torch::optim::Optimizer& optimizer, const TrainOptions& opt, double lr) {
  auto& groups = optimizer.param_groups();
  for (std::size_t g = 0; g < groups.size(); ++g)
    groups[g].options().set_lr(g == 1 && pe_has_own_group(opt) ? lr * opt.pe_lr_scale : lr);
}

}  // namespace loci::torch_trainer
