// Mixed precision for the training step: `train.precision: bf16` runs the forward pass (and so its backward) under
// LibTorch's autocast to bfloat16, while the parameters, the optimizer state and every evaluation stay float32, so
// the metrics of a bf16 run measure the same float32 model a user would load.
#pragma once

#include <ATen/autocast_mode.h>
#include <torch/torch.h>

#include <string>

namespace loci::torch_trainer {

class AutocastScope {
 public:
  AutocastScope(const std::string& precision, torch::DeviceType device)
      : on_(precision == "bf16"), cuda_(device == torch::kCUDA) {
    if (!on_) return;
    if (cuda_) {
      at::autocast::set_autocast_gpu_dtype(at::kBFloat16);
      at::autocast::set_enabled(true);
    } else {
      at::autocast::set_autocast_cpu_dtype(at::kBFloat16);
      at::autocast::set_cpu_enabled(true);
    }
  }
  ~AutocastScope() {
    if (!on_) return;
    if (cuda_) at::autocast::set_enabled(false);
    else at::autocast::set_cpu_enabled(false);
    at::autocast::clear_cache();  // the bf16 copies of the weights are stale after the optimizer step
  }
  AutocastScope(const AutocastScope&) = delete;
  AutocastScope& operator=(const AutocastScope&) = delete;

 private:
  bool on_, cuda_;
};

}  // namespace loci::torch_trainer
