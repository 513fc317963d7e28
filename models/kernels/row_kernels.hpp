#pragma once
// Row-major building blocks of the fused layers (fused_mlp, fused_linear_norm, attention_core): products of row
// blocks on the calling thread's BLAS, biases, column sums and LayerNorm over rows of a chunk that sits in cache.

#include <torch/types.h>

#include <cstdint>
#include <type_traits>
#include <vector>

namespace loci::models::rows {

// A row count, a width or an offset into rows (a tensor dimension; not datasets::Index, a dataset's index.json).
using Dim = std::int64_t;

// C[m, n] = alpha op(A) op(B) + beta C: a generated kernel (jit_gemm) where one covers the call (alpha 1, B not
// transposed: pass weights already transposed), else the calling thread's BLAS.
void gemm(bool trans_a, bool trans_b, Dim m, Dim n, Dim k, float alpha, const float* a, Dim lda, const float* b,
          Dim ldb, float beta, float* c, Dim ldc);

// How one pass's chunk products run: in float32 (gemm above), or with bfloat16 operands (bf16_products.hpp) where
// the layer's forward found bf16_products_on(); its backward keeps the forward's choice.
struct Products {
  bool bf16 = false;

  static Products now();  // float32, or bf16 while bf16_products_on()

  // As gemm; b16: B already rounded to bfloat16 (rounded() below), or null.
  void gemm(bool trans_a, bool trans_b, Dim m, Dim n, Dim k, float alpha, const float* a, Dim lda, const float* b,
            Dim ldb, float beta, float* c, Dim ldc, const std::uint16_t* b16 = nullptr) const;

  // count floats (a weight, once per pass) rounded to bfloat16; empty in float32.
  std::vector<std::uint16_t> rounded(const float* data, Dim count) const;
};

// The data of a rounded copy, or null where there is none.
inline const std::uint16_t* data_or_null(const std::vector<std::uint16_t>& v) { return v.empty() ? nullptr : v.data(); }

void add_bias(float* rows, Dim m, Dim n, const float* bias);

// Column sums in double: a bias gradient sums thousands of rows.
void add_column_sums(const float* rows, Dim m, Dim n, double* sums);

// LayerNorm(rows + residual) in place, row by row; xhat (the normalised rows) and rstd kept when given (not null).
void norm_rows(float* rows, const float* residual, Dim m, Dim n, const float* gamma, const float* beta, float eps,
               float* xhat, float* rstd);

// LayerNorm's backward for m rows: the gradient of its input into `out`, gamma's and beta's added to their sums.
void norm_backward_rows(const float* grad, const float* xhat, const float* rstd, const float* gamma, Dim m, Dim n,
                        float* out, double* sum_gamma, double* sum_beta);

// The data of a tensor that has any, else null (an empty tensor stands for "none" where autograd needs a tensor).
inline float* data_or_null(const torch::Tensor& t) {
  return t.defined() && t.numel() > 0 ? t.data_ptr<float>() : nullptr;
}

// Sums one member (a vector of partial sums) of per-slice shares in slice order into a new float32 tensor of
// `shape`: the sum then does not depend on how many threads computed the slices.
template <typename Share, typename T>
torch::Tensor sum_in_order(const std::vector<Share>& shares, std::vector<T> Share::*member, std::vector<Dim> shape) {
  std::vector<T> sum = shares.front().*member;
  for (std::size_t s = 1; s < shares.size(); ++s) {
    const auto& part = shares[s].*member;
    for (std::size_t i = 0; i < sum.size(); ++i) sum[i] += part[i];
  }
  const auto dtype = std::is_same_v<T, double> ? torch::kFloat64 : torch::kFloat32;
  return torch::from_blob(sum.data(), shape, dtype).to(torch::kFloat32, /*non_blocking=*/false, /*copy=*/true);
}

}  // namespace loci::models::rows
