// oneDNN as LibTorch loaded it: the one place loci opens it. LibTorch links oneDNN (Debian: libdnnl.so.2), so it is
// in the process whenever LibTorch is; loci asks its C API directly (RTLD_NOLOAD: never a second copy) because Debian
// ships no oneDNN headers with LibTorch. What it is used for (bf16 products, the run record) is decided elsewhere.
#pragma once

#include <cstdint>
#include <string>

namespace loci::cpu {

// dnnl_gemm_bf16bf16f32: C = alpha * op(A) op(B) + beta * C, row-major, bfloat16 operands as their bits, float32 C.
using OneDnnGemmBf16 = int (*)(char transa, char transb, std::int64_t m, std::int64_t n, std::int64_t k, float alpha,
                               const std::uint16_t* a, std::int64_t lda, const std::uint16_t* b, std::int64_t ldb,
                               float beta, float* c, std::int64_t ldc);

struct OneDnn {
  std::string isa;                     // its effective instruction set ("avx512_core_amx"), "" when not loaded
  OneDnnGemmBf16 gemm_bf16 = nullptr;  // null when not loaded or without the function
  bool loaded() const { return !isa.empty(); }
};

// Looked up on first use; call it once LibTorch is loaded (a process without LibTorch sees oneDNN as not loaded).
const OneDnn& onednn();

}  // namespace loci::cpu
