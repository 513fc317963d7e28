// What oneDNN does in this process: LibTorch sends bfloat16 matrix products to it (train.precision: bf16), and it
// chooses its own instruction set from the CPU, apart from OpenBLAS's kernel (cpu/blas_kernel.hpp). Both
// decide a bf16 run's speed and last bits, so runs record them beside the BLAS kernel. Evaluation is float32 and runs
// on the BLAS kernel.
#pragma once

#include <string>

namespace loci::torch_trainer {

struct OneDnnState {
  std::string isa;            // oneDNN's instruction set ("avx512_core_amx"), "" when oneDNN is not loaded
  std::string isa_cap;        // the user's ONEDNN_MAX_CPU_ISA (or DNNL_MAX_CPU_ISA), "" when unset
  std::string bf16_products;  // "the fused layers on oneDNN gemm_bf16bf16f32 (...)" (models/precision_scope.hpp),
                              // else autocast's: "oneDNN" or "LibTorch's reference loops"
  std::string why;            // one sentence for the log and summary.json
};

// Reads the state, and before a bf16 run keeps LibTorch off oneDNN where oneDNN cannot run bf16 products (a cap
// below AVX-512), which would otherwise fail at the first product.
OneDnnState settle_onednn();
// The state as settled (for summary.json); fused_products: train.bf16_products is fused.
OneDnnState onednn_state(bool fused_products);

}  // namespace loci::torch_trainer
