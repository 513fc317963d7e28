#include "models/kernels/batched_matmul.hpp"

#include "models/kernels/eligible.hpp"

#include <ATen/Parallel.h>
#include <cblas.h>
#include <torch/csrc/autograd/custom_function.h>

#include <algorithm>
#include <cstdint>

namespace loci::models {
namespace {

// A [B, H, rows, cols] operand as BLAS sees each of its matrices: row-major, transposed or not, leading dimension.
struct Operand {
  torch::Tensor tensor;  // keeps a contiguous copy alive when one was needed
  CBLAS_TRANSPOSE trans = CblasNoTrans;
  std::int64_t ld = 0;
};

Operand as_operand(const torch::Tensor& t) {
  const auto rows = t.size(2), cols = t.size(3);
  if (t.stride(3) == 1 && t.stride(2) >= std::max<std::int64_t>(1, cols)) return {t, CblasNoTrans, t.stride(2)};
  if (t.stride(2) == 1 && t.stride(3) >= std::max<std::int64_t>(1, rows)) return {t, CblasTrans, t.stride(3)};
  auto c = t.contiguous();
  return {c, CblasNoTrans, std::max<std::int64_t>(1, cols)};
}

torch::Tensor product(const torch::Tensor& a, const torch::Tensor& b, float alpha) {
  const auto B = a.size(0), H = a.size(1), m = a.size(2), k = a.size(3), n = b.size(3);
  auto out = torch::empty({B, H, m, n}, a.options().memory_format(at::MemoryFormat::Contiguous));
  if (out.numel() == 0) return out;
  if (k == 0) return out.zero_();
  const auto A = as_operand(a), Bm = as_operand(b);
  const float* pa = A.tensor.data_ptr<float>();
  const float* pb = Bm.tensor.data_ptr<float>();
  float* pc = out.data_ptr<float>();
  const auto a0 = A.tensor.stride(0), a1 = A.tensor.stride(1), b0 = Bm.tensor.stride(0), b1 = Bm.tensor.stride(1);
  // Enough products per task that scheduling stays cheaper than the arithmetic.
  const std::int64_t grain = std::max<std::int64_t>(1, 65536 / std::max<std::int64_t>(1, m * n * k));
  at::parallel_for(0, B * H, grain, [&](std::int64_t begin, std::int64_t end) {
    for (std::int64_t i = begin; i < end; ++i) {
      const auto bi = i / H, hi = i % H;
      cblas_sgemm(CblasRowMajor, A.trans, Bm.trans, static_cast<int>(m), static_cast<int>(n), static_cast<int>(k),
                  alpha, pa + bi * a0 + hi * a1, static_cast<int>(A.ld), pb + bi * b0 + hi * b1,
                  static_cast<int>(Bm.ld), 0.0f, pc + i * m * n, static_cast<int>(n));
    }
  });
  return out;
}

class BatchedMatmul : public torch::autograd::Function<BatchedMatmul> {
 public:
  static torch::Tensor forward(torch::autograd::AutogradContext* ctx, const torch::Tensor& a, const torch::Tensor& b,
                               double scale) {
    ctx->save_for_backward({a, b});
    ctx->saved_data["scale"] = scale;
    return product(a, b, static_cast<float>(scale));
  }

  static torch::autograd::tensor_list backward(torch::autograd::AutogradContext* ctx,
                                               torch::autograd::tensor_list grad) {
    const auto saved = ctx->get_saved_variables();
    const auto& g = grad[0];
    const auto scale = static_cast<float>(ctx->saved_data["scale"].toDouble());
    torch::Tensor ga, gb;
    if (ctx->needs_input_grad(0)) ga = product(g, saved[1].transpose(2, 3), scale);
    if (ctx->needs_input_grad(1)) gb = product(saved[0].transpose(2, 3), g, scale);
    return {ga, gb, torch::Tensor()};
  }
};

bool supported(const torch::Tensor& a, const torch::Tensor& b) {
  // No autocast check: under autocast q, k and v arrive as bfloat16 and go to torch::matmul by their dtype.
  return all_cpu_float32(a, b) && a.dim() == 4 && b.dim() == 4 && a.size(0) == b.size(0) && a.size(1) == b.size(1) &&
         a.size(3) == b.size(2) && !a.is_conj() && !b.is_conj() &&
         int_sized({a.size(2), a.size(3), b.size(3), a.stride(2), a.stride(3), b.stride(2), b.stride(3)});
}

}  // namespace

torch::Tensor batched_matmul(const torch::Tensor& a, const torch::Tensor& b, double scale) {
  if (!supported(a, b)) return scale == 1.0 ? torch::matmul(a, b) : torch::matmul(a, b) * scale;
  return BatchedMatmul::apply(a, b, scale);
}

}  // namespace loci::models
