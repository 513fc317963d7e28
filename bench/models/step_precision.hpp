// The training step's precision in the model benches: --bf16 (autocast) and --bf16-fused (train.bf16_products:
// fused), as the trainer runs them (models/precision_scope.hpp), and how the benches print it.
#pragma once

#include "models/kernels/bf16_products.hpp"

#include <string>

namespace loci::bench {

struct StepPrecision {
  models::Precision precision = models::Precision::fp32;
  models::Bf16Products bf16_products = models::Bf16Products::autocast;

  // Takes --bf16 or --bf16-fused; false for any other argument.
  bool parse(const std::string& arg) {
    if (arg != "--bf16" && arg != "--bf16-fused") return false;
    precision = models::Precision::bf16;
    bf16_products = arg == "--bf16" ? models::Bf16Products::autocast : models::Bf16Products::fused;
    return true;
  }

  // For the header line, with what bf16's products run on.
  std::string header() const {
    if (precision == models::Precision::fp32) return "";
    if (bf16_products == models::Bf16Products::autocast) return ", bf16 autocast";
    return ", bf16 fused products on " + models::bf16_products_engine();
  }

  // For RESULT lines' impl= (cpp, cpp_bf16, cpp_bf16_fused).
  const char* suffix() const {
    return precision == models::Precision::fp32              ? ""
           : bf16_products == models::Bf16Products::autocast ? "_bf16"
                                                             : "_bf16_fused";
  }
};

}  // namespace loci::bench
