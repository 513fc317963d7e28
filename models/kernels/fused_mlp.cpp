#include "models/kernels/fused_mlp.hpp"

#include "models/kernels/eligible.hpp"
#include "models/kernels/fused_gelu.hpp"
#include "models/kernels/row_kernels.hpp"
#include "models/kernels/single_thread_scope.hpp"

#include <ATen/Parallel.h>
#include <torch/csrc/autograd/custom_function.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <type_traits>
#include <vector>

namespace loci::models {
namespace {

using rows::add_bias;
using rows::add_column_sums;
using rows::data_or_null;
using rows::Dim;
using rows::norm_backward_rows;
using rows::norm_rows;
using rows::Products;

// Two [rows, hidden] float buffers per chunk within about half a megabyte: in a core's L2 on current x86 CPUs.
Dim chunk_rows(Dim hidden) { return std::clamp<Dim>(65536 / std::max<Dim>(1, hidden), 16, 512); }

struct Dims {
  Dim rows = 0, d_in = 0, hidden = 0, d_out = 0;
};

Dims dims_of(const torch::Tensor& x, const torch::Tensor& w1, const torch::Tensor& w2) {
  Dims d;
  d.d_in = x.size(-1);
  d.rows = d.d_in > 0 ? x.numel() / d.d_in : 0;
  d.hidden = w1.size(0);
  d.d_out = w2.size(0);
  return d;
}

// What the forward pass keeps for backward; null pointers where it keeps nothing (inference, or no such part).
struct Kept {
  float* h1 = nullptr;      // fc1's output before GELU, [rows, hidden]
  float* slope2 = nullptr;  // gelu'(fc2's output), [rows, d_out]
  float* xhat = nullptr;    // the normalised rows of x + mlp(x), [rows, d_out]
  float* rstd = nullptr;    // their 1 / std, [rows]
};

struct Norm {
  const float* gamma = nullptr;  // null: no residual and LayerNorm
  const float* beta = nullptr;
  float eps = 1e-5f;
};

// Each chunk's products run on one thread (SingleThreadScope, also where at::parallel_for runs a range inline):
// OpenBLAS rounds some small products differently on one thread and on several, and the chunks, not BLAS, are what
// runs side by side here.
void forward_rows(const Products& p, const Dims& d, const float* x, const MlpLayers& l, bool gelu2, const Norm& norm,
                  float* out, const Kept& kept) {
  const Dim step = chunk_rows(d.hidden);
  const Dim chunks = (d.rows + step - 1) / step;
  // The weights transposed once, so that every chunk's product takes them as they lie (rows::gemm).
  const auto w1t = l.w1.t().contiguous(), w2t = l.w2.t().contiguous();
  const float* w1 = w1t.data_ptr<float>();  // [d_in, hidden]
  const float* b1 = l.b1.data_ptr<float>();
  const float* w2 = w2t.data_ptr<float>();  // [hidden, d_out]
  const float* b2 = l.b2.data_ptr<float>();
  const auto w1r = p.rounded(w1, w1t.numel()), w2r = p.rounded(w2, w2t.numel());
  at::parallel_for(0, chunks, 1, [&](Dim first, Dim last) {
    const SingleThreadScope one;
    std::vector<float> scratch_h(static_cast<std::size_t>(kept.h1 ? 0 : step * d.hidden));
    std::vector<float> act(static_cast<std::size_t>(step * d.hidden));
    for (Dim chunk = first; chunk < last; ++chunk) {
      const Dim r0 = chunk * step, c = std::min(step, d.rows - r0);
      float* hc = kept.h1 ? kept.h1 + r0 * d.hidden : scratch_h.data();
      p.gemm(false, false, c, d.hidden, d.d_in, 1.0f, x + r0 * d.d_in, d.d_in, w1, d.hidden, 0.0f, hc, d.hidden,
             data_or_null(w1r));
      add_bias(hc, c, d.hidden, b1);
      gelu_values(hc, act.data(), c * d.hidden);
      float* oc = out + r0 * d.d_out;
      p.gemm(false, false, c, d.d_out, d.hidden, 1.0f, act.data(), d.hidden, w2, d.d_out, 0.0f, oc, d.d_out,
             data_or_null(w2r));
      add_bias(oc, c, d.d_out, b2);
      if (gelu2) {
        if (kept.slope2)
          gelu_values_and_slopes(oc, oc, kept.slope2 + r0 * d.d_out, c * d.d_out);
        else
          gelu_values(oc, oc, c * d.d_out);
      }
      if (norm.gamma)
        norm_rows(oc, x + r0 * d.d_in, c, d.d_out, norm.gamma, norm.beta, norm.eps,
                  kept.xhat ? kept.xhat + r0 * d.d_out : nullptr, kept.rstd ? kept.rstd + r0 : nullptr);
    }
  });
}

struct Grads {
  torch::Tensor x, w1, b1, w2, b2, gamma, beta;
};

// One slice's share of the weight and bias gradients: slices (a fixed number of chunks each) run side by side and
// their shares are summed in slice order, so the sum does not depend on how many threads ran them.
struct Share {
  std::vector<float> w1, w2;
  std::vector<double> b1, b2, gamma, beta;
};

struct Saved {
  const float *x, *w1, *w2, *h1, *slope2, *xhat, *rstd, *gamma;
};

Grads backward_rows(const Products& p, const Dims& d, const float* grad, const Saved& in, bool need_x,
                    const torch::TensorOptions& options) {
  constexpr Dim chunks_per_slice = 4;
  const Dim step = chunk_rows(d.hidden);
  const Dim slice_rows = chunks_per_slice * step;
  const Dim slices = (d.rows + slice_rows - 1) / slice_rows;
  const bool normed = in.gamma != nullptr;
  std::vector<Share> shares(static_cast<std::size_t>(slices));
  Grads out;
  if (need_x) out.x = torch::empty({d.rows, d.d_in}, options);
  float* gx = need_x ? out.x.data_ptr<float>() : nullptr;
  const auto w1r = p.rounded(in.w1, d.hidden * d.d_in), w2r = p.rounded(in.w2, d.d_out * d.hidden);

  at::parallel_for(0, slices, 1, [&](Dim first, Dim last) {
    const SingleThreadScope one;
    std::vector<float> act(static_cast<std::size_t>(step * d.hidden)), slope(act.size());
    std::vector<float> g2(static_cast<std::size_t>((in.slope2 || normed) ? step * d.d_out : 0));
    for (Dim slice = first; slice < last; ++slice) {
      auto& share = shares[static_cast<std::size_t>(slice)];
      share.w1.assign(static_cast<std::size_t>(d.hidden * d.d_in), 0.0f);
      share.w2.assign(static_cast<std::size_t>(d.d_out * d.hidden), 0.0f);
      share.b1.assign(static_cast<std::size_t>(d.hidden), 0.0);
      share.b2.assign(static_cast<std::size_t>(d.d_out), 0.0);
      share.gamma.assign(static_cast<std::size_t>(normed ? d.d_out : 0), 0.0);
      share.beta.assign(share.gamma.size(), 0.0);
      const Dim end = std::min(d.rows, (slice + 1) * slice_rows);
      for (Dim r0 = slice * slice_rows; r0 < end; r0 += step) {
        const Dim c = std::min(step, end - r0);
        const float* gc = grad + r0 * d.d_out;
        if (normed) {
          norm_backward_rows(gc, in.xhat + r0 * d.d_out, in.rstd + r0, in.gamma, c, d.d_out, g2.data(),
                             share.gamma.data(), share.beta.data());
          gc = g2.data();
          // The residual's share of x's gradient; the MLP's is added onto it below.
          if (gx) std::copy_n(gc, c * d.d_in, gx + r0 * d.d_in);
        }
        if (in.slope2) {
          const float* sc = in.slope2 + r0 * d.d_out;
          for (Dim i = 0; i < c * d.d_out; ++i) g2[static_cast<std::size_t>(i)] = gc[i] * sc[i];
          gc = g2.data();
        }
        add_column_sums(gc, c, d.d_out, share.b2.data());
        gelu_values_and_slopes(in.h1 + r0 * d.hidden, act.data(), slope.data(), c * d.hidden);
        p.gemm(true, false, d.d_out, d.hidden, c, 1.0f, gc, d.d_out, act.data(), d.hidden, 1.0f, share.w2.data(),
               d.hidden);
        float* gh = act.data();  // the activations are used; their buffer takes the hidden layer's gradient
        p.gemm(false, false, c, d.hidden, d.d_out, 1.0f, gc, d.d_out, in.w2, d.hidden, 0.0f, gh, d.hidden,
               data_or_null(w2r));
        for (Dim i = 0; i < c * d.hidden; ++i) gh[i] *= slope[static_cast<std::size_t>(i)];
        add_column_sums(gh, c, d.hidden, share.b1.data());
        p.gemm(true, false, d.hidden, d.d_in, c, 1.0f, gh, d.hidden, in.x + r0 * d.d_in, d.d_in, 1.0f, share.w1.data(),
               d.d_in);
        if (gx)
          p.gemm(false, false, c, d.d_in, d.hidden, 1.0f, gh, d.hidden, in.w1, d.d_in, normed ? 1.0f : 0.0f,
                 gx + r0 * d.d_in, d.d_in, data_or_null(w1r));
      }
    }
  });

  // The shares, summed in slice order.
  auto total = [&](auto member, std::vector<Dim> shape) { return rows::sum_in_order(shares, member, shape); };
  out.w1 = total(&Share::w1, {d.hidden, d.d_in});
  out.w2 = total(&Share::w2, {d.d_out, d.hidden});
  out.b1 = total(&Share::b1, {d.hidden});
  out.b2 = total(&Share::b2, {d.d_out});
  if (normed) {
    out.gamma = total(&Share::gamma, {d.d_out});
    out.beta = total(&Share::beta, {d.d_out});
  }
  return out;
}

std::vector<Dim> out_shape(const torch::Tensor& x, Dim d_out) {
  auto shape = x.sizes().vec();
  shape.back() = d_out;
  return shape;
}

// Autograd's functions take defined tensors: "no LayerNorm" travels as empty gamma and beta.
class FusedMlp : public torch::autograd::Function<FusedMlp> {
 public:
  static torch::Tensor forward(torch::autograd::AutogradContext* ctx, const torch::Tensor& input,
                               const torch::Tensor& w1, const torch::Tensor& b1, const torch::Tensor& w2,
                               const torch::Tensor& b2, const torch::Tensor& gamma_in, const torch::Tensor& beta_in,
                               bool gelu2, double eps) {
    const auto x = input.contiguous();
    const MlpLayers layers{w1.contiguous(), b1.contiguous(), w2.contiguous(), b2.contiguous()};
    const auto gamma = gamma_in.contiguous(), beta = beta_in.contiguous();
    const bool normed = gamma.numel() > 0;
    const Dims d = dims_of(x, layers.w1, layers.w2);
    auto out = torch::empty(out_shape(x, d.d_out), x.options());
    auto h1 = torch::empty({d.rows, d.hidden}, x.options());
    auto slope2 = gelu2 ? torch::empty({d.rows, d.d_out}, x.options()) : torch::empty({0}, x.options());
    auto xhat = normed ? torch::empty({d.rows, d.d_out}, x.options()) : torch::empty({0}, x.options());
    auto rstd = normed ? torch::empty({d.rows}, x.options()) : torch::empty({0}, x.options());
    const Norm norm{data_or_null(gamma), data_or_null(beta), static_cast<float>(eps)};
    const Kept kept{h1.data_ptr<float>(), data_or_null(slope2), data_or_null(xhat), data_or_null(rstd)};
    const Products p = Products::now();
    forward_rows(p, d, x.data_ptr<float>(), layers, gelu2, norm, out.data_ptr<float>(), kept);
    ctx->save_for_backward({x, layers.w1, layers.w2, h1, slope2, xhat, rstd, gamma});
    ctx->saved_data["bf16"] = p.bf16;
    ctx->saved_data["input_shape"] = input.sizes().vec();
    return out;
  }

  static torch::autograd::tensor_list backward(torch::autograd::AutogradContext* ctx,
                                               torch::autograd::tensor_list grad) {
    const auto saved = ctx->get_saved_variables();
    const auto& x = saved[0];
    const Dims d = dims_of(x, saved[1], saved[2]);
    const auto g = grad[0].contiguous();
    const Saved in{x.data_ptr<float>(),        saved[1].data_ptr<float>(), saved[2].data_ptr<float>(),
                   saved[3].data_ptr<float>(), data_or_null(saved[4]),     data_or_null(saved[5]),
                   data_or_null(saved[6]),     data_or_null(saved[7])};
    const Products p{ctx->saved_data["bf16"].toBool()};
    auto grads = backward_rows(p, d, g.data_ptr<float>(), in, ctx->needs_input_grad(0), x.options());
    if (grads.x.defined()) grads.x = grads.x.view(ctx->saved_data["input_shape"].toIntVector());
    auto keep = [&](int i, torch::Tensor t) { return ctx->needs_input_grad(i) ? t : torch::Tensor(); };
    return {grads.x,           keep(1, grads.w1),    keep(2, grads.b1),   keep(3, grads.w2),
            keep(4, grads.b2), keep(5, grads.gamma), keep(6, grads.beta), torch::Tensor(),
            torch::Tensor()};
  }
};

torch::Tensor unfused(const torch::Tensor& x, const MlpLayers& l, bool gelu2, const ResidualNorm& norm) {
  // fused_gelu: under bf16 autocast, ATen's bf16 gelu and gelu_backward took a sixth of the paper's step.
  auto h = torch::linear(fused_gelu(torch::linear(x, l.w1, l.b1)), l.w2, l.b2);
  if (gelu2) h = fused_gelu(h);
  if (!norm.weight.defined()) return h;
  return torch::layer_norm(h + x, {x.size(-1)}, norm.weight, norm.bias, norm.eps);
}

bool fusable(const torch::Tensor& x, const MlpLayers& l, const ResidualNorm& norm) {
  if (!all_cpu_float32(x, l.w1, l.b1, l.w2, l.b2) || !outside_autocast()) return false;
  if (norm.weight.defined() && (!all_cpu_float32(norm.weight, norm.bias) || l.w2.size(0) != x.size(-1) ||
                                norm.weight.numel() != x.size(-1) || norm.bias.numel() != x.size(-1)))
    return false;
  return x.dim() >= 1 && l.w1.dim() == 2 && l.w2.dim() == 2 && x.size(-1) == l.w1.size(1) &&
         l.w2.size(1) == l.w1.size(0) && l.b1.numel() == l.w1.size(0) && l.b2.numel() == l.w2.size(0) &&
         x.numel() > 0 && int_sized({x.numel() / x.size(-1), l.w1.size(0), l.w1.size(1), l.w2.size(0)});
}

}  // namespace

torch::Tensor fused_mlp(const torch::Tensor& x, const MlpLayers& layers, bool gelu_after_fc2,
                        const ResidualNorm& norm) {
  if (!fusable(x, layers, norm)) return unfused(x, layers, gelu_after_fc2, norm);
  const bool normed = norm.weight.defined();
  const bool grad =
      torch::GradMode::is_enabled() &&
      (x.requires_grad() || layers.w1.requires_grad() || layers.b1.requires_grad() || layers.w2.requires_grad() ||
       layers.b2.requires_grad() || (normed && (norm.weight.requires_grad() || norm.bias.requires_grad())));
  if (grad) {
    const auto none = torch::empty({0}, x.options());
    return FusedMlp::apply(x, layers.w1, layers.b1, layers.w2, layers.b2, normed ? norm.weight : none,
                           normed ? norm.bias : none, gelu_after_fc2, norm.eps);
  }
  const auto in = x.contiguous();
  const MlpLayers l{layers.w1.contiguous(), layers.b1.contiguous(), layers.w2.contiguous(), layers.b2.contiguous()};
  const auto gamma = normed ? norm.weight.contiguous() : torch::Tensor();
  const auto beta = normed ? norm.bias.contiguous() : torch::Tensor();
  const Dims d = dims_of(in, l.w1, l.w2);
  auto out = torch::empty(out_shape(in, d.d_out), in.options());
  forward_rows(Products::now(), d, in.data_ptr<float>(), l, gelu_after_fc2,
               {data_or_null(gamma), data_or_null(beta), static_cast<float>(norm.eps)}, out.data_ptr<float>(), {});
  return out;
}

}  // namespace loci::models
