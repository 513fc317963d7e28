#include "models/block.hpp"

#include "models/dropout.hpp"
#include "models/kernels/fused_gelu.hpp"
#include "models/kernels/fused_linear_norm.hpp"
#include "models/kernels/fused_mlp.hpp"
#include "models/linear.hpp"

#include <stdexcept>

namespace loci::models {

EncoderBlockImpl::EncoderBlockImpl(const BlockOptions& options) : options_(options) {
  gelu_ = options.activation() == Activation::gelu;
  post_norm_ = options.norm() == NormPlacement::post;
  const auto d = options.d_model();
  attention =
      register_module("attention", SelfAttention(AttentionOptions(d, options.heads()).dropout(options.dropout())));
  auto ln = torch::nn::LayerNormOptions({d}).eps(options.layer_norm_eps());
  norm1 = register_module("norm1", torch::nn::LayerNorm(ln));
  norm2 = register_module("norm2", torch::nn::LayerNorm(ln));
  fc1 = register_module("fc1", torch::nn::Linear(d, options.mlp_hidden()));
  fc2 = register_module("fc2", torch::nn::Linear(options.mlp_hidden(), d));
}

torch::Tensor EncoderBlockImpl::activate(const torch::Tensor& x) const {
  return gelu_ ? fused_gelu(x) : torch::relu(x);
}

torch::Tensor EncoderBlockImpl::mlp(const torch::Tensor& x) {
  const double p = options_.dropout();
  if (gelu_ && p == 0.0)
    return fused_mlp(x, {fc1->weight, fc1->bias, fc2->weight, fc2->bias}, options_.activation_after_both());
  auto h = activate(linear(fc1, x));
  if (p > 0.0) h = models::dropout(h, p, is_training());
  h = linear(fc2, h);
  if (options_.activation_after_both()) h = activate(h);
  if (p > 0.0) h = models::dropout(h, p, is_training());
  return h;
}

torch::Tensor EncoderBlockImpl::projected_input(const BlockPE& pe, const LinearInput& input) const {
  const bool pe_adds = pe.active && pe.pe != nullptr;
  if (!input.x.defined() || !post_norm_ || pe.prefix > 0 || (pe_adds && pe.pe->adds_dropout())) return {};
  const auto& w = attention->in_proj->weight;  // [3d, d]
  torch::Tensor rows = input.bias.defined() ? input.bias.unsqueeze(0) : torch::zeros({1, w.size(1)}, w.options());
  if (pe_adds) {
    const auto m = pe.pe->matrix(pe.placement);
    if (m.defined()) rows = rows + m;  // [T, d]
  }
  const auto& c = attention->in_proj->bias;
  const auto per_token = c.defined() ? torch::addmm(c, rows, w.t()) : torch::mm(rows, w.t());  // [1 or T, 3d]
  return torch::matmul(input.x, torch::mm(w, input.weight).t()) + per_token;
}

torch::Tensor EncoderBlockImpl::forward(const torch::Tensor& x, const BlockPE& pe, const torch::Tensor& query_index,
                                        const LinearInput& input) {
  auto h = (pe.active && pe.pe != nullptr) ? pe.pe->add(x, pe.placement, pe.prefix) : x;
  // The residual stream keeps only the rows that are queried.
  auto rows = [&](const torch::Tensor& t) {
    if (!query_index.defined()) return t;
    const auto idx = query_index.dim() == 1 ? query_index.view({-1, 1}) : query_index;  // [B, rows]
    return t.gather(1, idx.unsqueeze(-1).expand({t.size(0), idx.size(1), t.size(2)}));
  };
  const double p = options_.dropout();
  auto drop = [&](torch::Tensor t) { return p > 0.0 ? models::dropout(t, p, is_training()) : t; };
  if (post_norm_) {
    torch::Tensor y;
    if (p == 0.0) {  // out_proj, the residual sum and norm1 in one pass
      const auto& o = attention->out_proj;
      y = fused_linear_norm(attention->attend(h, pe, query_index, projected_input(pe, input)), rows(h),
                            {o->weight, o->bias, norm1->weight, norm1->bias, options_.layer_norm_eps()});
    } else {
      y = norm1(drop(attention(h, pe, query_index, projected_input(pe, input))) + rows(h));
    }
    if (gelu_ && p == 0.0)  // LayerNorm(y + mlp(y)) in the MLP's own pass
      return fused_mlp(y, {fc1->weight, fc1->bias, fc2->weight, fc2->bias}, options_.activation_after_both(),
                       {norm2->weight, norm2->bias, options_.layer_norm_eps()});
    return norm2(mlp(y) + y);
  }
  auto y = rows(h) + drop(attention(norm1(h), pe, query_index));
  return y + mlp(norm2(y));
}

}  // namespace loci::models
