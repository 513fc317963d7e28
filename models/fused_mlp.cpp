#include "models/fused_mlp.hpp"

#include "models/fused_gelu.hpp"
#include "models/micro_batches.hpp"

#include <ATen/Parallel.h>
#include <ATen/autocast_mode.h>
#include <cblas.h>
#include <torch/csrc/autograd/custom_function.h>

#include <algorithm>
#include <cstdint>
#include <type_traits>
#include <vector>

namespace loci::models {
namespace {

using Index = std::int64_t;

// Two [rows, hidden] float buffers per chunk within about half a megabyte: in a core's L2 on current x86 CPUs.
Index chunk_rows(Index hidden) { return std::clamp<Index>(65536 / std::max<Index>(1, hidden), 16, 512); }

// C[m, n] = op(A) op(B) + beta C, row-major.
void gemm(bool trans_a, bool trans_b, Index m, Index n, Index k, const float* a, Index lda, const float* b, Index ldb,
          float beta, float* c, Index ldc) {
  cblas_sgemm(CblasRowMajor, trans_a ? CblasTrans : CblasNoTrans, trans_b ? CblasTrans : CblasNoTrans,
              static_cast<int>(m), static_cast<int>(n), static_cast<int>(k), 1.0f, a, static_cast<int>(lda), b,
              static_cast<int>(ldb), beta, c, static_cast<int>(ldc));
}

void add_bias(float* rows, Index m, Index n, const float* bias) {
  for (Index r = 0; r < m; ++r) {
    float* row = rows + r * n;
    for (Index j = 0; j < n; ++j) row[j] += bias[j];
  }
}

// Column sums in double: a bias gradient sums thousands of rows.
void add_column_sums(const float* rows, Index m, Index n, double* sums) {
  for (Index r = 0; r < m; ++r) {
    const float* row = rows + r * n;
    for (Index j = 0; j < n; ++j) sums[j] += row[j];
  }
}

struct Dims {
  Index rows = 0, d_in = 0, hidden = 0, d_out = 0;
};

Dims dims_of(const torch::Tensor& x, const MlpLayers& l) {
  Dims d;
  d.d_in = x.size(-1);
  d.rows = d.d_in > 0 ? x.numel() / d.d_in : 0;
  d.hidden = l.w1.size(0);
  d.d_out = l.w2.size(0);
  return d;
}

// Each chunk's products run on one thread (SingleThreadScope, also where at::parallel_for runs a range inline):
// OpenBLAS rounds some small products differently on one thread and on several, and the chunks, not BLAS, are what
// runs side by side here.

// The forward pass over chunks of rows. h1 (fc1's output, [rows, hidden]) and slope2 (gelu'(fc2's output)) are
// kept when given, for backward; otherwise chunk-sized scratch holds them.
void forward_rows(const Dims& d, const float* x, const MlpLayers& l, bool gelu2, float* out, float* h1,
                  float* slope2) {
  const Index step = chunk_rows(d.hidden);
  const Index chunks = (d.rows + step - 1) / step;
  const float* w1 = l.w1.data_ptr<float>();
  const float* b1 = l.b1.data_ptr<float>();
  const float* w2 = l.w2.data_ptr<float>();
  const float* b2 = l.b2.data_ptr<float>();
  at::parallel_for(0, chunks, 1, [&](Index first, Index last) {
    const SingleThreadScope one;
    std::vector<float> scratch_h(static_cast<std::size_t>(h1 ? 0 : step * d.hidden));
    std::vector<float> act(static_cast<std::size_t>(step * d.hidden));
    for (Index chunk = first; chunk < last; ++chunk) {
      const Index r0 = chunk * step, c = std::min(step, d.rows - r0);
      float* hc = h1 ? h1 + r0 * d.hidden : scratch_h.data();
      gemm(false, true, c, d.hidden, d.d_in, x + r0 * d.d_in, d.d_in, w1, d.d_in, 0.0f, hc, d.hidden);
      add_bias(hc, c, d.hidden, b1);
      gelu_values(hc, act.data(), c * d.hidden);
      float* oc = out + r0 * d.d_out;
      gemm(false, true, c, d.d_out, d.hidden, act.data(), d.hidden, w2, d.hidden, 0.0f, oc, d.d_out);
      add_bias(oc, c, d.d_out, b2);
      if (!gelu2) continue;
      if (slope2)
        gelu_values_and_slopes(oc, oc, slope2 + r0 * d.d_out, c * d.d_out);
      else
        gelu_values(oc, oc, c * d.d_out);
    }
  });
}

struct Grads {
  torch::Tensor x, w1, b1, w2, b2;
};

// One slice's share of the weight and bias gradients: slices (a fixed number of chunks each) run side by side and
// their shares are summed in slice order, so the sum does not depend on how many threads ran them.
struct Share {
  std::vector<float> w1, w2;
  std::vector<double> b1, b2;
};

Grads backward_rows(const Dims& d, const torch::Tensor& grad, const torch::Tensor& x, const torch::Tensor& w1,
                    const torch::Tensor& w2, const torch::Tensor& h1, const torch::Tensor& slope2, bool need_x) {
  constexpr Index chunks_per_slice = 4;
  const Index step = chunk_rows(d.hidden);
  const Index slice_rows = chunks_per_slice * step;
  const Index slices = (d.rows + slice_rows - 1) / slice_rows;
  std::vector<Share> shares(static_cast<std::size_t>(slices));
  Grads out;
  if (need_x) out.x = torch::empty({d.rows, d.d_in}, x.options());
  const float* pg = grad.data_ptr<float>();
  const float* px = x.data_ptr<float>();
  const float* pw1 = w1.data_ptr<float>();
  const float* pw2 = w2.data_ptr<float>();
  const float* ph1 = h1.data_ptr<float>();
  const float* ps2 = slope2.defined() ? slope2.data_ptr<float>() : nullptr;
  float* gx = need_x ? out.x.data_ptr<float>() : nullptr;

  at::parallel_for(0, slices, 1, [&](Index first, Index last) {
    const SingleThreadScope one;
    std::vector<float> act(static_cast<std::size_t>(step * d.hidden)), slope(act.size());
    std::vector<float> g2(static_cast<std::size_t>(ps2 ? step * d.d_out : 0));
    for (Index slice = first; slice < last; ++slice) {
      auto& share = shares[static_cast<std::size_t>(slice)];
      share.w1.assign(static_cast<std::size_t>(d.hidden * d.d_in), 0.0f);
      share.w2.assign(static_cast<std::size_t>(d.d_out * d.hidden), 0.0f);
      share.b1.assign(static_cast<std::size_t>(d.hidden), 0.0);
      share.b2.assign(static_cast<std::size_t>(d.d_out), 0.0);
      const Index end = std::min(d.rows, (slice + 1) * slice_rows);
      for (Index r0 = slice * slice_rows; r0 < end; r0 += step) {
        const Index c = std::min(step, end - r0);
        const float* gc = pg + r0 * d.d_out;
        if (ps2) {
          const float* sc = ps2 + r0 * d.d_out;
          for (Index i = 0; i < c * d.d_out; ++i) g2[static_cast<std::size_t>(i)] = gc[i] * sc[i];
          gc = g2.data();
        }
        add_column_sums(gc, c, d.d_out, share.b2.data());
        gelu_values_and_slopes(ph1 + r0 * d.hidden, act.data(), slope.data(), c * d.hidden);
        gemm(true, false, d.d_out, d.hidden, c, gc, d.d_out, act.data(), d.hidden, 1.0f, share.w2.data(), d.hidden);
        float* gh = act.data();  // the activations are used; their buffer takes the hidden layer's gradient
        gemm(false, false, c, d.hidden, d.d_out, gc, d.d_out, pw2, d.hidden, 0.0f, gh, d.hidden);
        for (Index i = 0; i < c * d.hidden; ++i) gh[i] *= slope[static_cast<std::size_t>(i)];
        add_column_sums(gh, c, d.hidden, share.b1.data());
        gemm(true, false, d.hidden, d.d_in, c, gh, d.hidden, px + r0 * d.d_in, d.d_in, 1.0f, share.w1.data(),
             d.d_in);
        if (gx) gemm(false, false, c, d.d_in, d.hidden, gh, d.hidden, pw1, d.d_in, 0.0f, gx + r0 * d.d_in, d.d_in);
      }
    }
  });

  // The shares, summed in slice order.
  auto total = [&](auto member, std::vector<Index> shape) {
    using T = typename std::decay_t<decltype(shares[0].*member)>::value_type;
    std::vector<T> sum = shares[0].*member;
    for (std::size_t s = 1; s < shares.size(); ++s) {
      const auto& part = shares[s].*member;
      for (std::size_t i = 0; i < sum.size(); ++i) sum[i] += part[i];
    }
    const auto dtype = std::is_same_v<T, double> ? torch::kFloat64 : torch::kFloat32;
    return torch::from_blob(sum.data(), shape, dtype).to(x.options().dtype(), /*non_blocking=*/false, /*copy=*/true);
  };
  out.w1 = total(&Share::w1, {d.hidden, d.d_in});
  out.w2 = total(&Share::w2, {d.d_out, d.hidden});
  out.b1 = total(&Share::b1, {d.hidden});
  out.b2 = total(&Share::b2, {d.d_out});
  return out;
}

std::vector<Index> out_shape(const torch::Tensor& x, Index d_out) {
  auto shape = x.sizes().vec();
  shape.back() = d_out;
  return shape;
}

class FusedMlp : public torch::autograd::Function<FusedMlp> {
 public:
  static torch::Tensor forward(torch::autograd::AutogradContext* ctx, const torch::Tensor& input,
                               const torch::Tensor& w1, const torch::Tensor& b1, const torch::Tensor& w2,
                               const torch::Tensor& b2, bool gelu2) {
    const auto x = input.contiguous();
    const MlpLayers layers{w1.contiguous(), b1.contiguous(), w2.contiguous(), b2.contiguous()};
    const Dims d = dims_of(x, layers);
    auto out = torch::empty(out_shape(x, d.d_out), x.options());
    auto h1 = torch::empty({d.rows, d.hidden}, x.options());
    auto slope2 = gelu2 ? torch::empty({d.rows, d.d_out}, x.options()) : torch::Tensor();
    forward_rows(d, x.data_ptr<float>(), layers, gelu2, out.data_ptr<float>(), h1.data_ptr<float>(),
                 gelu2 ? slope2.data_ptr<float>() : nullptr);
    ctx->save_for_backward({x, layers.w1, layers.w2, h1, slope2});
    ctx->saved_data["input_shape"] = input.sizes().vec();
    return out;
  }

  static torch::autograd::tensor_list backward(torch::autograd::AutogradContext* ctx,
                                               torch::autograd::tensor_list grad) {
    const auto saved = ctx->get_saved_variables();
    const auto& x = saved[0];
    const MlpLayers layers{saved[1], {}, saved[2], {}};
    const Dims d = dims_of(x, layers);
    const auto g = grad[0].contiguous();
    auto grads = backward_rows(d, g, x, saved[1], saved[2], saved[3], saved[4], ctx->needs_input_grad(0));
    if (grads.x.defined()) grads.x = grads.x.view(ctx->saved_data["input_shape"].toIntVector());
    auto keep = [&](int i, torch::Tensor t) { return ctx->needs_input_grad(i) ? t : torch::Tensor(); };
    return {grads.x, keep(1, grads.w1), keep(2, grads.b1), keep(3, grads.w2), keep(4, grads.b2), torch::Tensor()};
  }
};

torch::Tensor unfused(const torch::Tensor& x, const MlpLayers& l, bool gelu2) {
  auto h = torch::linear(torch::gelu(torch::linear(x, l.w1, l.b1)), l.w2, l.b2);
  return gelu2 ? torch::gelu(h) : h;
}

bool fusable(const torch::Tensor& x, const MlpLayers& l) {
  constexpr Index int_max = 2147483647;
  for (const auto* t : {&x, &l.w1, &l.b1, &l.w2, &l.b2})
    if (!t->defined() || t->scalar_type() != torch::kFloat32 || !t->device().is_cpu()) return false;
  return !at::autocast::is_cpu_enabled() && x.dim() >= 1 && l.w1.dim() == 2 && l.w2.dim() == 2 &&
         x.size(-1) == l.w1.size(1) && l.w2.size(1) == l.w1.size(0) && l.b1.numel() == l.w1.size(0) &&
         l.b2.numel() == l.w2.size(0) && x.numel() > 0 && x.numel() / x.size(-1) < int_max &&
         std::max({l.w1.size(0), l.w1.size(1), l.w2.size(0)}) < int_max;
}

}  // namespace

torch::Tensor fused_mlp(const torch::Tensor& x, const MlpLayers& layers, bool gelu_after_fc2) {
  if (!fusable(x, layers)) return unfused(x, layers, gelu_after_fc2);
  const bool grad = torch::GradMode::is_enabled() &&
                    (x.requires_grad() || layers.w1.requires_grad() || layers.b1.requires_grad() ||
                     layers.w2.requires_grad() || layers.b2.requires_grad());
  if (grad) return FusedMlp::apply(x, layers.w1, layers.b1, layers.w2, layers.b2, gelu_after_fc2);
  const auto in = x.contiguous();
  const MlpLayers l{layers.w1.contiguous(), layers.b1.contiguous(), layers.w2.contiguous(), layers.b2.contiguous()};
  const Dims d = dims_of(in, l);
  auto out = torch::empty(out_shape(in, d.d_out), in.options());
  forward_rows(d, in.data_ptr<float>(), l, gelu_after_fc2, out.data_ptr<float>(), nullptr, nullptr);
  return out;
}

}  // namespace loci::models
