#pragma once
// bfloat16 products for the fused layers (train.precision: bf16 on a CPU): each chunk product takes its operands
// rounded to bfloat16 and sums in float32 into a float32 result, through oneDNN's gemm_bf16bf16f32 (AMX tiles or
// AVX512_BF16, oneDNN's own choice). Everything between the products (bias, GELU, LayerNorm, softmax, the attention's
// own products, the gradients' sums, parameters and AdamW state) stays float32.
//
// Why not LibTorch's autocast alone: it rounds every linear layer's output to bfloat16 and runs the layers on ATen's
// ops, so the fused layers (float32 only) fall away; on AMD Zen 5 bf16 then gained only 1.1-1.2x over their float32
// step. Here the fused layers keep their passes over cached chunks and only the products change precision.

#include <cstdint>
#include <string>

#include <boost/core/noncopyable.hpp>

namespace loci::models {

// Whether fused layers entered from now on, on this thread, run their products in bfloat16: a per-thread setting, as
// LibTorch's autocast is, read by each layer's forward on its calling thread and kept for its backward.
bool bf16_products_on();

// Turns bf16 products on for this thread while a scope lives (each micro-batch's forward pass, on its own thread).
class Bf16ProductsScope : boost::noncopyable {
 public:
  Bf16ProductsScope();
  ~Bf16ProductsScope();
};

// What bf16 products run on here, e.g. "oneDNN gemm_bf16bf16f32 (avx512_core_amx)"; empty where they cannot run
// natively (oneDNN not loaded, or its instruction set without bfloat16 arithmetic: no AVX512_BF16 or AMX, or capped
// below them by ONEDNN_MAX_CPU_ISA), and callers then keep to another path.
std::string bf16_products_engine();

namespace rows {

// C[m, n] = alpha op(A) op(B) + beta C for row-major float operands, A and B rounded to bfloat16 (to nearest even)
// and summed in float32, on the calling thread. b16: B already rounded (a weight rounded once per pass), laid out as
// b with leading dimension ldb; null to round b here. Only where bf16_products_engine() is not empty.
void bf16_gemm(bool trans_a, bool trans_b, std::int64_t m, std::int64_t n, std::int64_t k, float alpha, const float* a,
               std::int64_t lda, const float* b, const std::uint16_t* b16, std::int64_t ldb, float beta, float* c,
               std::int64_t ldc);

// out[r * cols + j] = bf16(in[r * ld + j]): a [rows, cols] block packed.
void round_to_bf16(std::int64_t rows, std::int64_t cols, const float* in, std::int64_t ld, std::uint16_t* out);

}  // namespace rows
}  // namespace loci::models
