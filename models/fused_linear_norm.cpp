#include "models/fused_linear_norm.hpp"

#include "models/micro_batches.hpp"
#include "models/row_kernels.hpp"

#include <ATen/Parallel.h>
#include <ATen/autocast_mode.h>
#include <torch/csrc/autograd/custom_function.h>

#include <algorithm>
#include <cstdint>
#include <vector>

namespace loci::models {
namespace {

using rows::Index;

constexpr Index kChunkRows = 256;
constexpr Index kChunksPerSlice = 4;

struct Dims {
  Index rows = 0, d_in = 0, d = 0;
};

Dims dims_of(const torch::Tensor& x, const torch::Tensor& weight) {
  return {x.numel() / x.size(-1), x.size(-1), weight.size(0)};
}

// out = LayerNorm(x Wᵀ + b + residual); xhat and rstd kept when given.
void forward_rows(const Dims& d, const float* x, const float* residual, const LinearNormLayers& l, float* out,
                  float* xhat, float* rstd) {
  const auto wt = l.weight.t().contiguous();  // transposed once for every chunk's product (rows::gemm)
  const float* w = wt.data_ptr<float>();      // [d_in, d]
  const float* b = l.bias.data_ptr<float>();
  const float* gamma = l.gamma.data_ptr<float>();
  const float* beta = l.beta.data_ptr<float>();
  const Index chunks = (d.rows + kChunkRows - 1) / kChunkRows;
  at::parallel_for(0, chunks, 1, [&](Index first, Index last) {
    const SingleThreadScope one;
    for (Index chunk = first; chunk < last; ++chunk) {
      const Index r0 = chunk * kChunkRows, c = std::min(kChunkRows, d.rows - r0);
      float* oc = out + r0 * d.d;
      rows::gemm(false, false, c, d.d, d.d_in, 1.0f, x + r0 * d.d_in, d.d_in, w, d.d, 0.0f, oc, d.d);
      rows::add_bias(oc, c, d.d, b);
      rows::norm_rows(oc, residual + r0 * d.d, c, d.d, gamma, beta, static_cast<float>(l.eps),
                      xhat ? xhat + r0 * d.d : nullptr, rstd ? rstd + r0 : nullptr);
    }
  });
}

struct Share {
  std::vector<float> w;
  std::vector<double> b, gamma, beta;
};

class FusedLinearNorm : public torch::autograd::Function<FusedLinearNorm> {
 public:
  static torch::Tensor forward(torch::autograd::AutogradContext* ctx, const torch::Tensor& x_in,
                               const torch::Tensor& residual_in, const torch::Tensor& weight,
                               const torch::Tensor& bias, const torch::Tensor& gamma, const torch::Tensor& beta,
                               double eps) {
    const auto x = x_in.contiguous(), residual = residual_in.contiguous();
    const LinearNormLayers l{weight.contiguous(), bias.contiguous(), gamma.contiguous(), beta.contiguous(), eps};
    const Dims d = dims_of(x, l.weight);
    auto out = torch::empty(residual.sizes(), x.options());
    auto xhat = torch::empty({d.rows, d.d}, x.options());
    auto rstd = torch::empty({d.rows}, x.options());
    forward_rows(d, x.data_ptr<float>(), residual.data_ptr<float>(), l, out.data_ptr<float>(), xhat.data_ptr<float>(),
                 rstd.data_ptr<float>());
    ctx->save_for_backward({x, l.weight, l.gamma, xhat, rstd});
    ctx->saved_data["x_shape"] = x_in.sizes().vec();
    ctx->saved_data["residual_shape"] = residual_in.sizes().vec();
    return out;
  }

  static torch::autograd::tensor_list backward(torch::autograd::AutogradContext* ctx,
                                               torch::autograd::tensor_list grad) {
    const auto saved = ctx->get_saved_variables();
    const auto &x = saved[0], &weight = saved[1];
    const Dims d = dims_of(x, weight);
    const auto g = grad[0].contiguous();
    auto gx = torch::empty({d.rows, d.d_in}, x.options());
    auto gs = torch::empty({d.rows, d.d}, x.options());  // the residual's gradient, and the product's
    const float* pg = g.data_ptr<float>();
    const float* px = x.data_ptr<float>();
    const float* pw = weight.data_ptr<float>();
    const float* pgamma = saved[2].data_ptr<float>();
    const float* pxhat = saved[3].data_ptr<float>();
    const float* prstd = saved[4].data_ptr<float>();
    float* pgx = gx.data_ptr<float>();
    float* pgs = gs.data_ptr<float>();
    const Index slice_rows = kChunksPerSlice * kChunkRows;
    const Index slices = (d.rows + slice_rows - 1) / slice_rows;
    std::vector<Share> shares(static_cast<std::size_t>(slices));
    at::parallel_for(0, slices, 1, [&](Index first, Index last) {
      const SingleThreadScope one;
      for (Index slice = first; slice < last; ++slice) {
        auto& share = shares[static_cast<std::size_t>(slice)];
        share.w.assign(static_cast<std::size_t>(d.d * d.d_in), 0.0f);
        share.b.assign(static_cast<std::size_t>(d.d), 0.0);
        share.gamma.assign(share.b.size(), 0.0);
        share.beta.assign(share.b.size(), 0.0);
        const Index end = std::min(d.rows, (slice + 1) * slice_rows);
        for (Index r0 = slice * slice_rows; r0 < end; r0 += kChunkRows) {
          const Index c = std::min(kChunkRows, end - r0);
          float* sc = pgs + r0 * d.d;
          rows::norm_backward_rows(pg + r0 * d.d, pxhat + r0 * d.d, prstd + r0, pgamma, c, d.d, sc,
                                   share.gamma.data(), share.beta.data());
          rows::add_column_sums(sc, c, d.d, share.b.data());
          rows::gemm(true, false, d.d, d.d_in, c, 1.0f, sc, d.d, px + r0 * d.d_in, d.d_in, 1.0f, share.w.data(),
                     d.d_in);
          rows::gemm(false, false, c, d.d_in, d.d, 1.0f, sc, d.d, pw, d.d_in, 0.0f, pgx + r0 * d.d_in, d.d_in);
        }
      }
    });
    auto total = [&](auto member, std::vector<Index> shape) { return rows::sum_in_order(shares, member, shape); };
    auto keep = [&](int i, torch::Tensor t) { return ctx->needs_input_grad(i) ? t : torch::Tensor(); };
    return {keep(0, gx.view(ctx->saved_data["x_shape"].toIntVector())),
            keep(1, gs.view(ctx->saved_data["residual_shape"].toIntVector())),
            keep(2, total(&Share::w, {d.d, d.d_in})),
            keep(3, total(&Share::b, {d.d})),
            keep(4, total(&Share::gamma, {d.d})),
            keep(5, total(&Share::beta, {d.d})),
            torch::Tensor()};
  }
};

bool fusable(const torch::Tensor& x, const torch::Tensor& residual, const LinearNormLayers& l) {
  constexpr Index int_max = 2147483647;
  for (const auto* t : {&x, &residual, &l.weight, &l.bias, &l.gamma, &l.beta})
    if (!t->defined() || t->scalar_type() != torch::kFloat32 || !t->device().is_cpu()) return false;
  if (at::autocast::is_cpu_enabled() || x.dim() < 1 || x.numel() == 0 || l.weight.dim() != 2) return false;
  const Index d = l.weight.size(0);
  auto leading = x.sizes().vec();
  leading.back() = d;
  return x.size(-1) == l.weight.size(1) && residual.sizes().vec() == leading && l.bias.numel() == d &&
         l.gamma.numel() == d && l.beta.numel() == d && x.numel() / x.size(-1) < int_max &&
         std::max(d, x.size(-1)) < int_max;
}

}  // namespace

torch::Tensor fused_linear_norm(const torch::Tensor& x, const torch::Tensor& residual, const LinearNormLayers& l) {
  if (!fusable(x, residual, l))
    return torch::layer_norm(torch::linear(x, l.weight, l.bias) + residual, {l.weight.size(0)}, l.gamma, l.beta, l.eps);
  const bool grad = torch::GradMode::is_enabled() &&
                    (x.requires_grad() || residual.requires_grad() || l.weight.requires_grad() ||
                     l.bias.requires_grad() || l.gamma.requires_grad() || l.beta.requires_grad());
  if (grad) return FusedLinearNorm::apply(x, residual, l.weight, l.bias, l.gamma, l.beta, l.eps);
  const auto in = x.contiguous(), res = residual.contiguous();
  const LinearNormLayers c{l.weight.contiguous(), l.bias.contiguous(), l.gamma.contiguous(), l.beta.contiguous(), l.eps};
  auto out = torch::empty(res.sizes(), in.options());
  forward_rows(dims_of(in, c.weight), in.data_ptr<float>(), res.data_ptr<float>(), c, out.data_ptr<float>(), nullptr,
               nullptr);
  return out;
}

}  // namespace loci::models
