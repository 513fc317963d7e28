#include "models/kernels/jit_gemm.hpp"

#include <libxsmm.h>

#include <limits>

namespace loci::models::rows {
namespace {

// libxsmm's kernels are column-major: the row-major C[m, n] = op(A) B is C^T[n, m] = B^T op(A)^T there, so the
// operands swap places and a transposed A becomes a transposed second operand.
struct Library {
  Library() { libxsmm_init(); }
  bool has_kernels() const { return libxsmm_get_target_archid() > LIBXSMM_X86_GENERIC; }
};

const Library& library() {
  static const Library instance;
  return instance;
}

bool fits_int(std::int64_t v) { return v >= 0 && v <= std::numeric_limits<libxsmm_blasint>::max(); }

}  // namespace

bool jit_gemm(bool trans_a, std::int64_t m, std::int64_t n, std::int64_t k, const float* a, std::int64_t lda,
              const float* b, std::int64_t ldb, float beta, float* c, std::int64_t ldc) {
  if (beta != 0.0f && beta != 1.0f) return false;
  if (!fits_int(m) || !fits_int(n) || !fits_int(k) || !fits_int(lda) || !fits_int(ldb) || !fits_int(ldc)) return false;
  if (m == 0 || n == 0) return true;
  if (!library().has_kernels()) return false;
  if (k == 0) {  // nothing to sum: C is beta C
    if (beta == 0.0f)
      for (std::int64_t r = 0; r < m; ++r)
        for (std::int64_t j = 0; j < n; ++j) c[r * ldc + j] = 0.0f;
    return true;
  }
  const libxsmm_blasint cm = n, cn = m, ck = k, clda = ldb, cldb = lda, cldc = ldc;
  const float alpha = 1.0f;
  const int flags = (trans_a ? LIBXSMM_GEMM_FLAG_TRANS_B : 0) | (beta == 0.0f ? LIBXSMM_GEMM_FLAG_BETA_0 : 0);
  const int prefetch = LIBXSMM_PREFETCH_NONE;
  const libxsmm_smmfunction kernel =
      libxsmm_smmdispatch(cm, cn, ck, &clda, &cldb, &cldc, &alpha, &beta, &flags, &prefetch);
  if (kernel == nullptr) return false;
  kernel(b, a, c);
  return true;
}

bool jit_round_to_bf16(std::int64_t rows, std::int64_t cols, const float* in, std::int64_t ld, std::uint16_t* out) {
  if (rows == 0 || cols == 0) return true;
  if (!fits_int(rows) || !fits_int(cols) || !fits_int(ld) || !library().has_kernels()) return false;
  // Column-major again: the [rows, cols] block is cols x rows there, leading dimensions ld and cols.
  // A single row's leading dimension is never used (callers pass 0 there), but libxsmm refuses one below cols.
  const libxsmm_blasint m = cols, n = rows, ldi = rows == 1 ? cols : ld, ldo = cols;
  const libxsmm_meltwfunction_cvtfp32bf16 kernel =
      libxsmm_dispatch_meltw_cvtfp32bf16(m, n, &ldi, &ldo, LIBXSMM_DATATYPE_F32, LIBXSMM_DATATYPE_BF16);
  if (kernel == nullptr) return false;
  libxsmm_meltw_cvtfp32bf16_param param;
  param.in_ptr = in;
  param.out_ptr = out;
  kernel(&param);
  return true;
}

void jit_transpose(std::int64_t rows, std::int64_t cols, const float* in, std::int64_t ldi, float* out,
                   std::int64_t ldo) {
  if (rows == 0 || cols == 0) return;
  if (!fits_int(rows) || !fits_int(cols) || !fits_int(ldi) || !fits_int(ldo)) {
    for (std::int64_t r = 0; r < rows; ++r)
      for (std::int64_t j = 0; j < cols; ++j) out[j * ldo + r] = in[r * ldi + j];
    return;
  }
  library();
  // Column-major, in is [cols x rows] with leading dimension ldi and out its transpose.
  libxsmm_otrans(out, in, sizeof(float), static_cast<libxsmm_blasint>(cols), static_cast<libxsmm_blasint>(rows),
                 static_cast<libxsmm_blasint>(ldi), static_cast<libxsmm_blasint>(ldo));
}

std::string jit_gemm_description() {
  if (!library().has_kernels()) return "none (libxsmm has no kernels for this CPU; BLAS runs every product)";
  return std::string("libxsmm ") + LIBXSMM_VERSION + " (" + libxsmm_get_target_arch() + ")";
}

}  // namespace loci::models::rows
