#include "models/kernels/fused_linear_norm.hpp"

#include "models/kernels/eligible.hpp"
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
using rows::Products;

constexpr Dim kChunkRows = 256;
constexpr Dim kChunksPerSlice = 4;

struct Dims {
  Dim rows = 0, d_in = 0, d = 0;
};

Dims dims_of(const torch::Tensor& x, const torch::Tensor& weight) {
  return {x.numel() / x.size(-1), x.size(-1), weight.size(0)};
}

// out = x Wᵀ + b, then LayerNorm(out + residual) where l.gamma is defined; xhat and rstd kept when given.
void forward_rows(const Products& p, const Dims& d, const float* x, const float* residual, const LinearNormLayers& l,
                  float* out, float* xhat, float* rstd) {
  const auto wt = l.weight.t().contiguous();  // transposed once for every chunk's product (rows::gemm)
  const float* w = wt.data_ptr<float>();      // [d_in, d]
  const auto wr = p.rounded(w, wt.numel());
  const float* b = l.bias.data_ptr<float>();
  const bool normed = l.gamma.defined();
  const float* gamma = normed ? l.gamma.data_ptr<float>() : nullptr;
  const float* beta = normed ? l.beta.data_ptr<float>() : nullptr;
  const Dim chunks = (d.rows + kChunkRows - 1) / kChunkRows;
  at::parallel_for(0, chunks, 1, [&](Dim first, Dim last) {
    const SingleThreadScope one;
    for (Dim chunk = first; chunk < last; ++chunk) {
      const Dim r0 = chunk * kChunkRows, c = std::min(kChunkRows, d.rows - r0);
      float* oc = out + r0 * d.d;
      p.gemm(false, false, c, d.d, d.d_in, 1.0f, x + r0 * d.d_in, d.d_in, w, d.d, 0.0f, oc, d.d,
             rows::data_or_null(wr));
      rows::add_bias(oc, c, d.d, b);
      if (normed)
        rows::norm_rows(oc, residual + r0 * d.d, c, d.d, gamma, beta, static_cast<float>(l.eps),
                        xhat ? xhat + r0 * d.d : nullptr, rstd ? rstd + r0 : nullptr);
    }
  });
}

struct Share {
  std::vector<float> w;
  std::vector<double> b, gamma, beta;
};

// What forward kept of the LayerNorm (all null: there was none).
struct KeptNorm {
  const float *gamma = nullptr, *xhat = nullptr, *rstd = nullptr;
};

struct Gradients {
  torch::Tensor x;    // dL/dx, undefined when not asked for
  torch::Tensor sum;  // dL/d(x Wᵀ + b), the residual's gradient too (with no LayerNorm: the incoming gradient)
  std::vector<Share> shares;
};

// Backward over slices of rows side by side: each slice's weight, bias (and LayerNorm) gradients go to its own
// share, summed in slice order by the caller.
Gradients backward_rows(const Products& p, const Dims& d, const torch::Tensor& g, const torch::Tensor& x,
                        const torch::Tensor& weight, const KeptNorm& norm, bool want_x) {
  Gradients out;
  if (want_x) out.x = torch::empty({d.rows, d.d_in}, x.options());
  out.sum = norm.gamma ? torch::empty({d.rows, d.d}, x.options()) : g;
  const float* pg = g.data_ptr<float>();
  const float* px = x.data_ptr<float>();
  const float* pw = weight.data_ptr<float>();
  float* pgx = want_x ? out.x.data_ptr<float>() : nullptr;
  float* pgs = norm.gamma ? out.sum.data_ptr<float>() : nullptr;
  const auto wr = want_x ? p.rounded(pw, weight.numel()) : std::vector<std::uint16_t>();
  const Dim slice_rows = kChunksPerSlice * kChunkRows;
  const Dim slices = (d.rows + slice_rows - 1) / slice_rows;
  out.shares.resize(static_cast<std::size_t>(slices));
  at::parallel_for(0, slices, 1, [&](Dim first, Dim last) {
    const SingleThreadScope one;
    for (Dim slice = first; slice < last; ++slice) {
      auto& share = out.shares[static_cast<std::size_t>(slice)];
      share.w.assign(static_cast<std::size_t>(d.d * d.d_in), 0.0f);
      share.b.assign(static_cast<std::size_t>(d.d), 0.0);
      if (norm.gamma) {
        share.gamma.assign(share.b.size(), 0.0);
        share.beta.assign(share.b.size(), 0.0);
      }
      const Dim end = std::min(d.rows, (slice + 1) * slice_rows);
      for (Dim r0 = slice * slice_rows; r0 < end; r0 += kChunkRows) {
        const Dim c = std::min(kChunkRows, end - r0);
        const float* sc = pg + r0 * d.d;
        if (norm.gamma) {
          rows::norm_backward_rows(sc, norm.xhat + r0 * d.d, norm.rstd + r0, norm.gamma, c, d.d, pgs + r0 * d.d,
                                   share.gamma.data(), share.beta.data());
          sc = pgs + r0 * d.d;
        }
        rows::add_column_sums(sc, c, d.d, share.b.data());
        p.gemm(true, false, d.d, d.d_in, c, 1.0f, sc, d.d, px + r0 * d.d_in, d.d_in, 1.0f, share.w.data(), d.d_in);
        if (pgx)
          p.gemm(false, false, c, d.d_in, d.d, 1.0f, sc, d.d, pw, d.d_in, 0.0f, pgx + r0 * d.d_in, d.d_in,
                 rows::data_or_null(wr));
      }
    }
  });
  return out;
}

template <typename T>
torch::Tensor total(const Gradients& g, std::vector<T> Share::*member, std::vector<Dim> shape) {
  return rows::sum_in_order(g.shares, member, std::move(shape));
}

// What both layers' backward start from: the saved x and weight (and, with a LayerNorm, what forward kept of it).
struct Backward {
  Dims d;
  Gradients g;
  torch::Tensor x;  // dL/dx in x's shape, undefined where not asked for
};

Backward backward_of(torch::autograd::AutogradContext* ctx, const torch::Tensor& grad, bool normed) {
  const auto saved = ctx->get_saved_variables();
  const auto &x = saved[0], &weight = saved[1];
  Backward b;
  b.d = dims_of(x, weight);
  const KeptNorm norm =
      normed ? KeptNorm{saved[2].data_ptr<float>(), saved[3].data_ptr<float>(), saved[4].data_ptr<float>()}
             : KeptNorm{};
  const Products p{ctx->saved_data["bf16"].toBool()};
  b.g = backward_rows(p, b.d, grad.contiguous(), x, weight, norm, ctx->needs_input_grad(0));
  if (b.g.x.defined()) b.x = b.g.x.view(ctx->saved_data["x_shape"].toIntVector());
  return b;
}

// x Wᵀ + b, [..., d_in] -> [..., d], on contiguous x and layers without a LayerNorm.
torch::Tensor linear_rows(const Products& p, const torch::Tensor& x, const LinearNormLayers& l) {
  const Dims d = dims_of(x, l.weight);
  auto shape = x.sizes().vec();
  shape.back() = d.d;
  auto out = torch::empty(shape, x.options());
  forward_rows(p, d, x.data_ptr<float>(), nullptr, l, out.data_ptr<float>(), nullptr, nullptr);
  return out;
}

class FusedLinearNorm : public torch::autograd::Function<FusedLinearNorm> {
 public:
  static torch::Tensor forward(torch::autograd::AutogradContext* ctx, const torch::Tensor& x_in,
                               const torch::Tensor& residual_in, const torch::Tensor& weight, const torch::Tensor& bias,
                               const torch::Tensor& gamma, const torch::Tensor& beta, double eps) {
    const auto x = x_in.contiguous(), residual = residual_in.contiguous();
    const LinearNormLayers l{weight.contiguous(), bias.contiguous(), gamma.contiguous(), beta.contiguous(), eps};
    const Dims d = dims_of(x, l.weight);
    auto out = torch::empty(residual.sizes(), x.options());
    auto xhat = torch::empty({d.rows, d.d}, x.options());
    auto rstd = torch::empty({d.rows}, x.options());
    const Products p = Products::now();
    forward_rows(p, d, x.data_ptr<float>(), residual.data_ptr<float>(), l, out.data_ptr<float>(),
                 xhat.data_ptr<float>(), rstd.data_ptr<float>());
    ctx->save_for_backward({x, l.weight, l.gamma, xhat, rstd});
    ctx->saved_data["bf16"] = p.bf16;
    ctx->saved_data["x_shape"] = x_in.sizes().vec();
    ctx->saved_data["residual_shape"] = residual_in.sizes().vec();
    return out;
  }

  static torch::autograd::tensor_list backward(torch::autograd::AutogradContext* ctx,
                                               torch::autograd::tensor_list grad) {
    const Backward b = backward_of(ctx, grad[0], true);
    auto keep = [&](int i, torch::Tensor t) { return ctx->needs_input_grad(i) ? t : torch::Tensor(); };
    return {b.x,
            keep(1, b.g.sum.view(ctx->saved_data["residual_shape"].toIntVector())),
            keep(2, total(b.g, &Share::w, {b.d.d, b.d.d_in})),
            keep(3, total(b.g, &Share::b, {b.d.d})),
            keep(4, total(b.g, &Share::gamma, {b.d.d})),
            keep(5, total(b.g, &Share::beta, {b.d.d})),
            torch::Tensor()};
  }
};

class FusedLinear : public torch::autograd::Function<FusedLinear> {
 public:
  static torch::Tensor forward(torch::autograd::AutogradContext* ctx, const torch::Tensor& x_in,
                               const torch::Tensor& weight, const torch::Tensor& bias) {
    const auto x = x_in.contiguous();
    const LinearNormLayers l{weight.contiguous(), bias.contiguous(), {}, {}, 0.0};
    const Products p = Products::now();
    auto out = linear_rows(p, x, l);
    ctx->save_for_backward({x, l.weight});
    ctx->saved_data["bf16"] = p.bf16;
    ctx->saved_data["x_shape"] = x_in.sizes().vec();
    return out;
  }

  static torch::autograd::tensor_list backward(torch::autograd::AutogradContext* ctx,
                                               torch::autograd::tensor_list grad) {
    const Backward b = backward_of(ctx, grad[0], false);
    auto keep = [&](int i, torch::Tensor t) { return ctx->needs_input_grad(i) ? t : torch::Tensor(); };
    return {b.x, keep(1, total(b.g, &Share::w, {b.d.d, b.d.d_in})), keep(2, total(b.g, &Share::b, {b.d.d}))};
  }
};

// x [..., d_in] against weight [d, d_in] and bias [d], in int-sized products, outside autocast.
bool linear_fusable(const torch::Tensor& x, const torch::Tensor& weight, const torch::Tensor& bias) {
  if (!all_cpu_float32(x, weight, bias) || !outside_autocast()) return false;
  if (x.dim() < 1 || x.numel() == 0 || weight.dim() != 2) return false;
  const Dim d = weight.size(0);
  return x.size(-1) == weight.size(1) && bias.numel() == d && int_sized({x.numel() / x.size(-1), d, x.size(-1)});
}

bool fusable(const torch::Tensor& x, const torch::Tensor& residual, const LinearNormLayers& l) {
  if (!linear_fusable(x, l.weight, l.bias) || !all_cpu_float32(residual, l.gamma, l.beta)) return false;
  const Dim d = l.weight.size(0);
  auto leading = x.sizes().vec();
  leading.back() = d;
  return residual.sizes().vec() == leading && l.gamma.numel() == d && l.beta.numel() == d;
}

}  // namespace

torch::Tensor fused_linear_norm(const torch::Tensor& x, const torch::Tensor& residual, const LinearNormLayers& l) {
  if (!fusable(x, residual, l))
    return torch::layer_norm(torch::linear(x, l.weight, l.bias) + residual, {l.weight.size(0)}, l.gamma, l.beta, l.eps);
  const bool grad =
      torch::GradMode::is_enabled() && (x.requires_grad() || residual.requires_grad() || l.weight.requires_grad() ||
                                        l.bias.requires_grad() || l.gamma.requires_grad() || l.beta.requires_grad());
  if (grad) return FusedLinearNorm::apply(x, residual, l.weight, l.bias, l.gamma, l.beta, l.eps);
  const auto in = x.contiguous(), res = residual.contiguous();
  const LinearNormLayers c{l.weight.contiguous(), l.bias.contiguous(), l.gamma.contiguous(), l.beta.contiguous(),
                           l.eps};
  auto out = torch::empty(res.sizes(), in.options());
  forward_rows(Products::now(), dims_of(in, c.weight), in.data_ptr<float>(), res.data_ptr<float>(), c,
               out.data_ptr<float>(), nullptr, nullptr);
  return out;
}

torch::Tensor fused_linear(const torch::Tensor& x, const torch::Tensor& weight, const torch::Tensor& bias) {
  if (!linear_fusable(x, weight, bias)) return torch::linear(x, weight, bias);
  if (torch::GradMode::is_enabled() && (x.requires_grad() || weight.requires_grad() || bias.requires_grad()))
    return FusedLinear::apply(x, weight, bias);
  return linear_rows(Products::now(), x.contiguous(), {weight.contiguous(), bias.contiguous(), {}, {}, 0.0});
}

}  // namespace loci::models
