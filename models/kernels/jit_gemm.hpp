#pragma once
// Products of the fused layers' row chunks through kernels generated for their exact shapes at run time (libxsmm):
// a chunk's product is small (a few hundred rows, K of 64 to 256), and a BLAS call packs both operands into its own
// layout on every call, which on these shapes costs as much as a third of the product. A generated kernel reads the
// operands where they lie.

#include <cstdint>
#include <string>

namespace loci::models::rows {

// C[m, n] = op(A)[m, k] B[k, n] + beta C for row-major operands, on the calling thread. Returns false, computing
// nothing, where no generated kernel covers the call (the caller then uses BLAS): beta other than 0 or 1, or a CPU
// libxsmm has no kernels for. Each output element sums its k products in order, so the result does not depend on
// how many threads run chunks side by side.
bool jit_gemm(bool trans_a, std::int64_t m, std::int64_t n, std::int64_t k, const float* a, std::int64_t lda,
              const float* b, std::int64_t ldb, float beta, float* c, std::int64_t ldc);

// out[cols, rows] = in[rows, cols]ᵀ for row-major operands, on the calling thread, through libxsmm's generated
// transpose kernels (a third of the time of a plain loop on a 100 x 16 slice with rows 192 apart).
void jit_transpose(std::int64_t rows, std::int64_t cols, const float* in, std::int64_t ldi, float* out,
                   std::int64_t ldo);

// out[r * cols + j] = bf16(in[r * ld + j]), rounded to nearest even, through libxsmm's generated conversion: on a
// CPU with AVX512_BF16 that is its own instruction, which reads float32 denormals as zero; on other AVX-512 CPUs an
// exact emulation. Returns false, writing nothing, where libxsmm generates no conversion (AVX2 and older CPUs).
bool jit_round_to_bf16(std::int64_t rows, std::int64_t cols, const float* in, std::int64_t ld, std::uint16_t* out);

// What the generated kernels run on, for run records: "libxsmm 1.17 (cpx)", or "none (...)" with the reason.
std::string jit_gemm_description();

}  // namespace loci::models::rows
