#include "cpu/clones.hpp"  // first: it sets how the loops below are compiled

#include "models/kernels/attention_core.hpp"

#include "cpu/fast_math.hpp"
#include "models/kernels/eligible.hpp"
#include "models/kernels/jit_gemm.hpp"
#include "models/kernels/lane_sums.hpp"
#include "models/kernels/row_kernels.hpp"
#include "models/kernels/single_thread_scope.hpp"

#include <ATen/Parallel.h>
#include <torch/csrc/autograd/custom_function.h>

#include <algorithm>
#include <cstdint>
#include <vector>

namespace loci::models {
namespace {

using rows::Dim;
using rows::gemm;

struct Shape {
  Dim batch = 0, tokens = 0, rows = 0, d = 0, heads = 1, dh = 0;
  Dim task_count() const { return batch * heads; }
};

Shape shape_of(const torch::Tensor& qkv, Dim heads, const torch::Tensor& rows) {
  Shape s;
  s.batch = qkv.size(0);
  s.tokens = qkv.size(1);
  s.d = qkv.size(2) / 3;
  s.heads = heads;
  s.dh = s.d / heads;
  s.rows = rows.defined() ? rows.size(1) : s.tokens;
  return s;
}

// softmax(scale S) over each row of the unscaled scores S, in place (scale > 0, so the top of S is the top of scale S).
LOCI_CLONES void softmax_rows(float* p, Dim rows, Dim n, float scale) {
  for (Dim r = 0; r < rows; ++r) {
    float* row = p + r * n;
    const float top = lanes::max(row, n);
    for (Dim j = 0; j < n; ++j) row[j] = cpu::exp_nonpositive((row[j] - top) * scale);
    const float inv = 1.0f / lanes::sum(n, [&](Dim j) { return row[j]; });
    for (Dim j = 0; j < n; ++j) row[j] *= inv;
  }
}

// The softmax's backward from dL/dP to dL/dS for unscaled scores S, in place: scale P (dP - rowsum(dP P)).
LOCI_CLONES void softmax_backward_rows(const float* p, float* dp, Dim rows, Dim n, float scale) {
  for (Dim r = 0; r < rows; ++r) {
    const float* pr = p + r * n;
    float* gr = dp + r * n;
    const float dot = lanes::sum(n, [&](Dim j) { return gr[j] * pr[j]; });
    for (Dim j = 0; j < n; ++j) gr[j] = scale * (pr[j] * (gr[j] - dot));
  }
}

// One sample's and head's operands inside qkv: q, k, v start at these pointers, rows 3d apart.
struct Task {
  const float *q, *k, *v;
  Dim b, h;
};

Task task_of(const Shape& s, const float* qkv, Dim i) {
  const Dim b = i / s.heads, h = i % s.heads;
  const float* base = qkv + b * s.tokens * 3 * s.d + h * s.dh;
  return {base, base + s.d, base + 2 * s.d, b, h};
}

// The query rows a task multiplies: q itself (leading dimension 3d), or the rows it asks for, gathered into `into`.
const float* queries(const Shape& s, const Task& t, const std::int64_t* rows, std::vector<float>& into, Dim& ld) {
  if (!rows) {
    ld = 3 * s.d;
    return t.q;
  }
  ld = s.dh;
  for (Dim r = 0; r < s.rows; ++r) std::copy_n(t.q + rows[t.b * s.rows + r] * 3 * s.d, s.dh, into.data() + r * s.dh);
  return into.data();
}

// A task's k or v [N, dh] (rows 3d apart) as [dh, N], so that the products that take it transposed take it as it
// lies: rows::gemm then runs them on generated kernels (see jit_gemm.hpp), as it does every other product here.
void transpose_into(const Shape& s, const float* from, float* to) {
  rows::jit_transpose(s.tokens, s.dh, from, 3 * s.d, to, s.tokens);
}

// Writes out [B, R, d]; the softmax weights [B, H, R, N] go to `probs` when given (kept for backward).
void forward_tasks(const Shape& s, const float* qkv, const std::int64_t* rows, float scale, float* probs, float* out) {
  at::parallel_for(0, s.task_count(), 1, [&](Dim first, Dim last) {
    const SingleThreadScope one;
    std::vector<float> gathered(static_cast<std::size_t>(rows ? s.rows * s.dh : 0));
    std::vector<float> scratch(static_cast<std::size_t>(probs ? 0 : s.rows * s.tokens));
    std::vector<float> kt(static_cast<std::size_t>(s.dh * s.tokens));
    for (Dim i = first; i < last; ++i) {
      const Task t = task_of(s, qkv, i);
      Dim ldq = 0;
      const float* q = queries(s, t, rows, gathered, ldq);
      float* p = probs ? probs + i * s.rows * s.tokens : scratch.data();
      transpose_into(s, t.k, kt.data());
      gemm(false, false, s.rows, s.tokens, s.dh, 1.0f, q, ldq, kt.data(), s.tokens, 0.0f, p, s.tokens);
      softmax_rows(p, s.rows, s.tokens, scale);
      gemm(false, false, s.rows, s.dh, s.tokens, 1.0f, p, s.tokens, t.v, 3 * s.d, 0.0f,
           out + t.b * s.rows * s.d + t.h * s.dh, s.d);
    }
  });
}

// dL/dqkv [B, N, 3d] from dL/dout [B, R, d]. With query rows, q's gradient is zero on the rows not asked for.
torch::Tensor backward_tasks(const Shape& s, const torch::Tensor& qkv, const torch::Tensor& rows_tensor,
                             const torch::Tensor& probs_tensor, const torch::Tensor& grad, float scale) {
  // With query rows, q's gradient is zero outside them: each task clears its own q slice below, in cache, rather
  // than a zeros_like over all of [B, N, 3d] (a cold 2.4 MB pass on the Exp 2/3 model).
  auto dqkv = torch::empty_like(qkv);
  const float* pqkv = qkv.data_ptr<float>();
  const std::int64_t* rows = rows_tensor.defined() ? rows_tensor.data_ptr<std::int64_t>() : nullptr;
  const float* probs = probs_tensor.data_ptr<float>();
  const float* pg = grad.data_ptr<float>();
  float* pd = dqkv.data_ptr<float>();
  at::parallel_for(0, s.task_count(), 1, [&](Dim first, Dim last) {
    const SingleThreadScope one;
    std::vector<float> gathered(static_cast<std::size_t>(rows ? s.rows * s.dh : 0));
    std::vector<float> dq_rows(gathered.size());
    std::vector<float> ds(static_cast<std::size_t>(s.rows * s.tokens));
    std::vector<float> vt(static_cast<std::size_t>(s.dh * s.tokens));
    for (Dim i = first; i < last; ++i) {
      const Task t = task_of(s, pqkv, i);
      Dim ldq = 0;
      const float* q = queries(s, t, rows, gathered, ldq);
      const float* p = probs + i * s.rows * s.tokens;
      const float* go = pg + t.b * s.rows * s.d + t.h * s.dh;
      float* dq = pd + t.b * s.tokens * 3 * s.d + t.h * s.dh;
      float* dk = dq + s.d;
      float* dv = dq + 2 * s.d;
      transpose_into(s, t.v, vt.data());
      gemm(false, false, s.rows, s.tokens, s.dh, 1.0f, go, s.d, vt.data(), s.tokens, 0.0f, ds.data(), s.tokens);
      softmax_backward_rows(p, ds.data(), s.rows, s.tokens, scale);  // ds is now dL/d(unscaled scores)
      if (rows) {
        gemm(false, false, s.rows, s.dh, s.tokens, 1.0f, ds.data(), s.tokens, t.k, 3 * s.d, 0.0f, dq_rows.data(), s.dh);
        for (Dim n = 0; n < s.tokens; ++n) std::fill_n(dq + n * 3 * s.d, s.dh, 0.0f);
        for (Dim r = 0; r < s.rows; ++r) {
          float* to = dq + rows[t.b * s.rows + r] * 3 * s.d;
          const float* from = dq_rows.data() + r * s.dh;
          for (Dim j = 0; j < s.dh; ++j) to[j] += from[j];
        }
      } else {
        gemm(false, false, s.rows, s.dh, s.tokens, 1.0f, ds.data(), s.tokens, t.k, 3 * s.d, 0.0f, dq, 3 * s.d);
      }
      gemm(true, false, s.tokens, s.dh, s.rows, 1.0f, ds.data(), s.tokens, q, ldq, 0.0f, dk, 3 * s.d);
      gemm(true, false, s.tokens, s.dh, s.rows, 1.0f, p, s.tokens, go, s.d, 0.0f, dv, 3 * s.d);
    }
  });
  return dqkv;
}

class AttentionCore : public torch::autograd::Function<AttentionCore> {
 public:
  static torch::Tensor forward(torch::autograd::AutogradContext* ctx, const torch::Tensor& qkv_in, int64_t heads,
                               double scale, const torch::Tensor& rows_in) {
    const auto qkv = qkv_in.contiguous();
    const auto rows = rows_in.numel() > 0 ? rows_in.contiguous() : torch::Tensor();  // empty: all rows
    const Shape s = shape_of(qkv, heads, rows);
    auto probs = torch::empty({s.batch, s.heads, s.rows, s.tokens}, qkv.options());
    auto out = torch::empty({s.batch, s.rows, s.d}, qkv.options());
    forward_tasks(s, qkv.data_ptr<float>(), rows.defined() ? rows.data_ptr<std::int64_t>() : nullptr,
                  static_cast<float>(scale), probs.data_ptr<float>(), out.data_ptr<float>());
    ctx->save_for_backward({qkv, probs, rows.defined() ? rows : rows_in});
    ctx->saved_data["heads"] = heads;
    ctx->saved_data["scale"] = scale;
    return out;
  }

  static torch::autograd::tensor_list backward(torch::autograd::AutogradContext* ctx,
                                               torch::autograd::tensor_list grad) {
    const auto saved = ctx->get_saved_variables();
    const auto rows = saved[2].numel() > 0 ? saved[2] : torch::Tensor();
    const Shape s = shape_of(saved[0], ctx->saved_data["heads"].toInt(), rows);
    const auto scale = static_cast<float>(ctx->saved_data["scale"].toDouble());
    return {backward_tasks(s, saved[0], rows, saved[1], grad[0].contiguous(), scale), torch::Tensor(), torch::Tensor(),
            torch::Tensor()};
  }
};

}  // namespace

bool attention_core_applies(const torch::Tensor& qkv) {
  return cpu_float32(qkv) && outside_autocast() && qkv.dim() == 3 && qkv.size(2) % 3 == 0 && qkv.numel() > 0 &&
         int_sized({qkv.size(1), qkv.size(2)});
}

torch::Tensor attention_core(const torch::Tensor& qkv, int64_t heads, double scale, const torch::Tensor& rows) {
  TORCH_CHECK(attention_core_applies(qkv), "attention_core: qkv must be a float32 CPU tensor [B, N, 3d]");
  TORCH_CHECK((qkv.size(2) / 3) % heads == 0, "attention_core: d must be a multiple of heads");
  TORCH_CHECK(!rows.defined() || (rows.dim() == 2 && rows.size(0) == qkv.size(0) && rows.size(1) > 0 &&
                                  rows.scalar_type() == torch::kInt64),
              "attention_core: rows must be [B, R] int64, R > 0");
  // Autograd's functions take defined tensors: no rows travel as an empty one.
  if (torch::GradMode::is_enabled() && qkv.requires_grad())
    return AttentionCore::apply(qkv, heads, scale, rows.defined() ? rows : torch::empty({0}, torch::kInt64));
  const auto in = qkv.contiguous();
  const auto r = rows.defined() ? rows.contiguous() : torch::Tensor();
  const Shape s = shape_of(in, heads, r);
  auto out = torch::empty({s.batch, s.rows, s.d}, in.options());
  forward_tasks(s, in.data_ptr<float>(), r.defined() ? r.data_ptr<std::int64_t>() : nullptr, static_cast<float>(scale),
                nullptr, out.data_ptr<float>());
  return out;
}

}  // namespace loci::models
