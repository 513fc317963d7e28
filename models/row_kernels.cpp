#include "models/row_kernels.hpp"

#include <cblas.h>

#include <cmath>

namespace loci::models::rows {

void gemm(bool trans_a, bool trans_b, Index m, Index n, Index k, float alpha, const float* a, Index lda,
          const float* b, Index ldb, float beta, float* c, Index ldc) {
  cblas_sgemm(CblasRowMajor, trans_a ? CblasTrans : CblasNoTrans, trans_b ? CblasTrans : CblasNoTrans,
              static_cast<int>(m), static_cast<int>(n), static_cast<int>(k), alpha, a, static_cast<int>(lda), b,
              static_cast<int>(ldb), beta, c, static_cast<int>(ldc));
}

void add_bias(float* rows, Index m, Index n, const float* bias) {
  for (Index r = 0; r < m; ++r) {
    float* row = rows + r * n;
    for (Index j = 0; j < n; ++j) row[j] += bias[j];
  }
}

void add_column_sums(const float* rows, Index m, Index n, double* sums) {
  for (Index r = 0; r < m; ++r) {
    const float* row = rows + r * n;
    for (Index j = 0; j < n; ++j) sums[j] += row[j];
  }
}

void norm_rows(float* rows, const float* residual, Index m, Index n, const float* gamma, const float* beta, float eps,
               float* xhat, float* rstd) {
  for (Index r = 0; r < m; ++r) {
    float* row = rows + r * n;
    const float* res = residual + r * n;
    float mean = 0.0f;
    for (Index j = 0; j < n; ++j) {
      row[j] += res[j];
      mean += row[j];
    }
    mean /= static_cast<float>(n);
    float var = 0.0f;
    for (Index j = 0; j < n; ++j) var += (row[j] - mean) * (row[j] - mean);
    const float inv = 1.0f / std::sqrt(var / static_cast<float>(n) + eps);
    for (Index j = 0; j < n; ++j) {
      const float normalised = (row[j] - mean) * inv;
      if (xhat) xhat[r * n + j] = normalised;
      row[j] = normalised * gamma[j] + beta[j];
    }
    if (rstd) rstd[r] = inv;
  }
}

void norm_backward_rows(const float* grad, const float* xhat, const float* rstd, const float* gamma, Index m, Index n,
                        float* out, double* sum_gamma, double* sum_beta) {
  for (Index r = 0; r < m; ++r) {
    const float* g = grad + r * n;
    const float* xh = xhat + r * n;
    float* o = out + r * n;
    float mean_g = 0.0f, mean_gx = 0.0f;
    for (Index j = 0; j < n; ++j) {
      const float dxh = g[j] * gamma[j];
      mean_g += dxh;
      mean_gx += dxh * xh[j];
      sum_gamma[j] += g[j] * xh[j];
      sum_beta[j] += g[j];
    }
    mean_g /= static_cast<float>(n);
    mean_gx /= static_cast<float>(n);
    for (Index j = 0; j < n; ++j) o[j] = rstd[r] * (g[j] * gamma[j] - mean_g - xh[j] * mean_gx);
  }
}

}  // namespace loci::models::rows
