#include "cpu/clones.hpp"  // first: it sets how the loops below are compiled

#include "models/kernels/row_kernels.hpp"

#include "models/kernels/bf16_products.hpp"
#include "models/kernels/jit_gemm.hpp"
#include "models/kernels/lane_sums.hpp"

#include <cblas.h>

#include <cmath>
#include <utility>

namespace loci::models::rows {

void gemm(bool trans_a, bool trans_b, Dim m, Dim n, Dim k, float alpha, const float* a, Dim lda, const float* b,
          Dim ldb, float beta, float* c, Dim ldc) {
  if (alpha == 1.0f && !trans_b && jit_gemm(trans_a, m, n, k, a, lda, b, ldb, beta, c, ldc)) return;
  cblas_sgemm(CblasRowMajor, trans_a ? CblasTrans : CblasNoTrans, trans_b ? CblasTrans : CblasNoTrans,
              static_cast<int>(m), static_cast<int>(n), static_cast<int>(k), alpha, a, static_cast<int>(lda), b,
              static_cast<int>(ldb), beta, c, static_cast<int>(ldc));
}

Products Products::now() { return {bf16_products_on()}; }

void Products::gemm(bool trans_a, bool trans_b, Dim m, Dim n, Dim k, float alpha, const float* a, Dim lda,
                    const float* b, Dim ldb, float beta, float* c, Dim ldc, const std::uint16_t* b16) const {
  if (bf16)
    bf16_gemm(trans_a, trans_b, m, n, k, alpha, a, lda, b, b16, ldb, beta, c, ldc);
  else
    rows::gemm(trans_a, trans_b, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}

std::vector<std::uint16_t> Products::rounded(const float* data, Dim count) const {
  if (!bf16) return {};
  std::vector<std::uint16_t> out(static_cast<std::size_t>(count));
  round_to_bf16(1, count, data, count, out.data());
  return out;
}

LOCI_CLONES void add_bias(float* rows, Dim m, Dim n, const float* bias) {
  for (Dim r = 0; r < m; ++r) {
    float* row = rows + r * n;
    for (Dim j = 0; j < n; ++j) row[j] += bias[j];
  }
}

LOCI_CLONES void add_column_sums(const float* rows, Dim m, Dim n, double* sums) {
  for (Dim r = 0; r < m; ++r) {
    const float* row = rows + r * n;
    for (Dim j = 0; j < n; ++j) sums[j] += row[j];
  }
}

LOCI_CLONES void norm_rows(float* rows, const float* residual, Dim m, Dim n, const float* gamma, const float* beta,
                           float eps, float* xhat, float* rstd) {
  for (Dim r = 0; r < m; ++r) {
    float* row = rows + r * n;
    const float* res = residual + r * n;
    for (Dim j = 0; j < n; ++j) row[j] += res[j];
    const float mean = lanes::sum(n, [&](Dim j) { return row[j]; }) / static_cast<float>(n);
    const float var = lanes::sum(n, [&](Dim j) { return (row[j] - mean) * (row[j] - mean); });
    const float inv = 1.0f / std::sqrt(var / static_cast<float>(n) + eps);
    for (Dim j = 0; j < n; ++j) {
      const float normalised = (row[j] - mean) * inv;
      if (xhat) xhat[r * n + j] = normalised;
      row[j] = normalised * gamma[j] + beta[j];
    }
    if (rstd) rstd[r] = inv;
  }
}

LOCI_CLONES void norm_backward_rows(const float* grad, const float* xhat, const float* rstd, const float* gamma, Dim m,
                                    Dim n, float* out, double* sum_gamma, double* sum_beta) {
  for (Dim r = 0; r < m; ++r) {
    const float* g = grad + r * n;
    const float* xh = xhat + r * n;
    float* o = out + r * n;
    for (Dim j = 0; j < n; ++j) {
      sum_gamma[j] += g[j] * xh[j];
      sum_beta[j] += g[j];
    }
    float mean_g = 0.0f, mean_gx = 0.0f;
    lanes::sum2(
        n,
        [&](Dim j) {
          const float dxh = g[j] * gamma[j];
          return std::pair<float, float>(dxh, dxh * xh[j]);
        },
        mean_g, mean_gx);
    mean_g /= static_cast<float>(n);
    mean_gx /= static_cast<float>(n);
    for (Dim j = 0; j < n; ++j) o[j] = rstd[r] * (g[j] * gamma[j] - mean_g - xh[j] * mean_gx);
  }
}

}  // namespace loci::models::rows
