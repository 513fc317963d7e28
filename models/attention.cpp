#include "models/attention.hpp"

#include "models/dropout.hpp"
#include "models/kernels/attention_core.hpp"
#include "models/kernels/batched_matmul.hpp"
#include "models/linear.hpp"

#include <ATen/autocast_mode.h>

#include <cmath>
#include <limits>
#include <stdexcept>

#include <boost/core/noncopyable.hpp>

namespace loci::models {
namespace {

// Applies a hook meant for the T data tokens to the last T of N tokens, leaving the prefix as it is.
torch::Tensor data_part(const torch::Tensor& t, int64_t prefix) {
  return prefix > 0 ? t.narrow(2, prefix, t.size(2) - prefix) : t;
}

torch::Tensor with_prefix(const torch::Tensor& t, const torch::Tensor& data, int64_t prefix) {
  return prefix > 0 ? torch::cat({t.narrow(2, 0, prefix), data}, 2) : data;
}

// CPU autocast off for a scope, on again after it (also when the scope throws).
class CpuAutocastOff : boost::noncopyable {
 public:
  CpuAutocastOff() { at::autocast::set_cpu_enabled(false); }
  ~CpuAutocastOff() { at::autocast::set_cpu_enabled(true); }
};

}  // namespace

SelfAttentionImpl::SelfAttentionImpl(const AttentionOptions& options) : options_(options) {
  if (options.d_model() < 1 || options.heads() < 1 || options.d_model() % options.heads() != 0)
    throw std::invalid_argument("attention: d_model must be a positive multiple of heads");
  in_proj = register_module("in_proj", torch::nn::Linear(options.d_model(), 3 * options.d_model()));
  out_proj = register_module("out_proj", torch::nn::Linear(options.d_model(), options.d_model()));
}

torch::Tensor SelfAttentionImpl::forward(const torch::Tensor& x, const BlockPE& pe, const torch::Tensor& query_index,
                                         const torch::Tensor& projected) {
  return linear(out_proj, attend(x, pe, query_index, projected));
}

torch::Tensor SelfAttentionImpl::attend(const torch::Tensor& x, const BlockPE& pe, const torch::Tensor& query_index,
                                        const torch::Tensor& projected) {
  const auto B = x.size(0), N = x.size(1), d = options_.d_model(), H = options_.heads(), dh = d / H;
  const double scale = 1.0 / std::sqrt(static_cast<double>(dh));
  // chunk, not select: its backward is one cat, where three selects would each scatter into a zeroed [3d] copy.
  const auto joint = projected.defined() ? projected : linear(in_proj, x);  // [B, N, 3d]
  const auto qkv = joint.chunk(3, -1);
  auto split_heads = [&](const torch::Tensor& t) { return t.view({B, N, H, dh}).transpose(1, 2); };  // [B, H, N, dh]
  auto q = split_heads(qkv[0]), k = split_heads(qkv[1]), v = split_heads(qkv[2]);

  const bool hooks = pe.active && pe.pe != nullptr;
  bool rotated = false;
  if (hooks) {
    auto qd = data_part(q, pe.prefix), kd = data_part(k, pe.prefix);
    auto q_plain = qd;
    pe.pe->rotate(qd, kd, pe.placement);
    rotated = !qd.is_same(q_plain);
    if (rotated) {
      q = with_prefix(q, qd, pe.prefix);
      k = with_prefix(k, kd, pe.prefix);
    }
  }
  const auto bias = hooks ? pe.pe->attention_bias(pe.placement, data_part(q, pe.prefix), scale) : torch::Tensor();
  const bool plain = !rotated && !bias.defined() && !(hooks && pe.pe->causal());
  const bool drops = options_.dropout() > 0.0 && is_training();
  if (plain && !drops && !record_) {
    torch::Tensor idx;
    if (query_index.defined()) idx = query_index.dim() == 1 ? query_index.view({-1, 1}) : query_index;
    if (attention_core_applies(joint)) return attention_core(joint, H, scale, idx);
    // Under CPU bf16 autocast the attention's own products are small next to the projections around it, while
    // ATen's bf16 path copies q, k, v contiguous, cats their gradients and keeps its softmax in memory (a tenth of
    // the paper's bf16 step). So they run in float32 here, more exact, and out_proj casts the result back to bf16.
    if (joint.device().is_cpu() && joint.scalar_type() == torch::kBFloat16 && at::autocast::is_cpu_enabled()) {
      const CpuAutocastOff off;
      const auto full = joint.to(torch::kFloat32);
      if (attention_core_applies(full)) return attention_core(full, H, scale, idx);
    }
  }

  auto scores = batched_matmul(q, k.transpose(-2, -1), scale);  // [B, H, N, N]
  if (hooks) {
    if (bias.defined())
      scores = scores + (pe.prefix > 0 ? torch::constant_pad_nd(bias, {pe.prefix, 0, pe.prefix, 0}) : bias);
    if (pe.pe->causal()) {
      auto later = torch::ones({N, N}, torch::TensorOptions().dtype(torch::kBool)).triu(1);
      scores = scores.masked_fill(later, -std::numeric_limits<float>::infinity());
    }
  }
  int64_t rows = N;
  if (query_index.defined()) {
    const auto idx = query_index.dim() == 1 ? query_index.view({-1, 1}) : query_index;  // [B, rows]
    rows = idx.size(1);
    scores = scores.gather(2, idx.view({B, 1, rows, 1}).expand({B, H, rows, N}));
  }
  auto weights = torch::softmax(scores, -1);
  if (record_) last_map_ = weights.detach();
  if (options_.dropout() > 0.0) weights = models::dropout(weights, options_.dropout(), is_training());
  return batched_matmul(weights, v).transpose(1, 2).reshape({B, rows, d});
}

}  // namespace loci::models
