// Mixed precision for a training step (the trainer's, and the benches'). bf16 runs the forward pass (and so its
// backward) under LibTorch's autocast to bfloat16, or, with `fused` products on a CPU, rounds only the operands of
// the fused layers' chunk products to bfloat16 and keeps everything else float32 (bf16_products.hpp). Either way
// the parameters, the optimizer state and every evaluation stay float32, so the metrics of a bf16 run measure the
// same float32 model a user would load.
#pragma once

#include "models/kernels/bf16_products.hpp"

#include <ATen/autocast_mode.h>
#include <torch/torch.h>

#include <optional>
#include <string>

#include <boost/core/noncopyable.hpp>

namespace loci::models {

// A training step's arithmetic (the trainer's train.precision), and how a bf16 step runs its products
// (train.bf16_products): fused is CPU only, where bf16_products_engine() is not empty (callers check); on CUDA bf16 is
// autocast.
enum class Precision { fp32, bf16 };
enum class Bf16Products { autocast, fused };

class PrecisionScope : boost::noncopyable {
 public:
  PrecisionScope(Precision precision, Bf16Products bf16_products, torch::DeviceType device)
      : autocast_(precision == Precision::bf16 && (bf16_products != Bf16Products::fused || device != torch::kCPU)),
        cuda_(device == torch::kCUDA) {
    if (precision == Precision::bf16 && !autocast_) products_.emplace();
    if (!autocast_) return;
    if (cuda_) {
      at::autocast::set_autocast_gpu_dtype(at::kBFloat16);
      at::autocast::set_enabled(true);
    } else {
      at::autocast::set_autocast_cpu_dtype(at::kBFloat16);
      at::autocast::set_cpu_enabled(true);
    }
  }
  ~PrecisionScope() {
    if (!autocast_) return;
    if (cuda_)
      at::autocast::set_enabled(false);
    else
      at::autocast::set_cpu_enabled(false);
    at::autocast::clear_cache();  // the bf16 copies of the weights are stale after the optimizer step
  }

 private:
  bool autocast_, cuda_;
  std::optional<Bf16ProductsScope> products_;
};

}  // namespace loci::models
