// What summary.json says of how a run computed: the BLAS library and kernel, where bf16 products run (or that an
// fp32 run has none), and the fused layers' generated kernels. These decide speed and the last bits of every product.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "models/precision_scope.hpp"

namespace loci::torch_trainer {

// The entries blas, blas_kernel, onednn and chunk_products of summary.json for a run of `precision` (fp32, bf16);
// `fused_products`: its bf16 products run in the fused layers rather than under autocast.
nlohmann::ordered_json numerics_summary(models::Precision precision, bool fused_products);

}  // namespace loci::torch_trainer
