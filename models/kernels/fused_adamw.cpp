#include "cpu/clones.hpp"  // first: it sets how the loops below are compiled

#include "models/kernels/fused_adamw.hpp"

#include "models/kernels/eligible.hpp"

#include <ATen/Parallel.h>
#include <c10/util/string_utils.h>
#include <torch/csrc/autograd/variable.h>
#include <torch/utils.h>

#include <cmath>
#include <cstdint>

namespace loci::models {
namespace {

struct Update {
  float decay = 1.0f;  // 1 - lr * weight_decay
  float beta1 = 0.9f, one_minus_beta1 = 0.1f, beta2 = 0.999f, one_minus_beta2 = 0.001f;
  float sqrt_correction2 = 1.0f;  // sqrt(1 - beta2^step)
  float eps = 1e-8f;
  float neg_step_size = 0.0f;  // -lr / (1 - beta1^step)
};

LOCI_CLONES void update(const Update& u, float* p, const float* g, float* m, float* v, std::int64_t n) {
  for (std::int64_t i = 0; i < n; ++i) {
    const float w = p[i] * u.decay;
    const float gi = g[i];
    const float mi = m[i] * u.beta1 + u.one_minus_beta1 * gi;
    const float vi = v[i] * u.beta2 + u.one_minus_beta2 * gi * gi;
    const float denom = std::sqrt(vi) / u.sqrt_correction2 + u.eps;
    m[i] = mi;
    v[i] = vi;
    p[i] = w + u.neg_step_size * (mi / denom);
  }
}

bool fusable(const torch::Tensor& t) { return cpu_float32(t) && t.is_contiguous() && !t.is_sparse(); }

}  // namespace

torch::Tensor FusedAdamW::step(LossClosure closure) {
  torch::NoGradGuard no_grad;
  torch::Tensor loss;
  if (closure != nullptr) {
    const at::AutoGradMode enable_grad(true);
    loss = closure();
  }
  for (auto& group : param_groups_) {
    const auto& options = static_cast<const torch::optim::AdamWOptions&>(group.options());
    for (auto& p : group.params()) {
      const auto& grad = p.grad();
      if (!grad.defined()) continue;
      TORCH_CHECK(!grad.is_sparse(), "AdamW does not support sparse gradients");
      const auto key = c10::guts::to_string(p.unsafeGetTensorImpl());
      if (state_.find(key) == state_.end()) {
        auto state = std::make_unique<torch::optim::AdamWParamState>();
        state->step(0);
        state->exp_avg(torch::zeros_like(p, torch::MemoryFormat::Preserve));
        state->exp_avg_sq(torch::zeros_like(p, torch::MemoryFormat::Preserve));
        if (options.amsgrad()) state->max_exp_avg_sq(torch::zeros_like(p, torch::MemoryFormat::Preserve));
        state_[key] = std::move(state);
      }
      auto& state = static_cast<torch::optim::AdamWParamState&>(*state_[key]);
      state.step(state.step() + 1);
      const double beta1 = std::get<0>(options.betas()), beta2 = std::get<1>(options.betas());
      const double correction1 = 1 - std::pow(beta1, static_cast<double>(state.step()));
      const double correction2 = 1 - std::pow(beta2, static_cast<double>(state.step()));
      const double step_size = options.lr() / correction1;
      auto& m = state.exp_avg();
      auto& v = state.exp_avg_sq();
      if (options.amsgrad() || !fusable(p) || !fusable(grad) || !fusable(m) || !fusable(v)) {
        // LibTorch's AdamW, operation by operation.
        if (options.weight_decay() != 0) p.mul_(1 - options.lr() * options.weight_decay());
        m.mul_(beta1).add_(grad, 1 - beta1);
        v.mul_(beta2).addcmul_(grad, grad, 1 - beta2);
        torch::Tensor denom;
        if (options.amsgrad()) {
          auto& max_v = state.max_exp_avg_sq();
          torch::max_out(max_v, v, max_v);
          denom = (max_v.sqrt() / std::sqrt(correction2)).add_(options.eps());
        } else {
          denom = (v.sqrt() / std::sqrt(correction2)).add_(options.eps());
        }
        p.addcdiv_(m, denom, -step_size);
        continue;
      }
      Update u;
      u.decay = static_cast<float>(options.weight_decay() != 0 ? 1 - options.lr() * options.weight_decay() : 1.0);
      u.beta1 = static_cast<float>(beta1);
      u.one_minus_beta1 = static_cast<float>(1 - beta1);
      u.beta2 = static_cast<float>(beta2);
      u.one_minus_beta2 = static_cast<float>(1 - beta2);
      u.sqrt_correction2 = static_cast<float>(std::sqrt(correction2));
      u.eps = static_cast<float>(options.eps());
      u.neg_step_size = static_cast<float>(-step_size);
      float* pp = p.data_ptr<float>();
      const float* pg = grad.data_ptr<float>();
      float* pm = m.data_ptr<float>();
      float* pv = v.data_ptr<float>();
      at::parallel_for(0, p.numel(), 16384, [&](std::int64_t begin, std::int64_t end) {
        update(u, pp + begin, pg + begin, pm + begin, pv + begin, end - begin);
      });
      // Written through raw pointers: tell autograd, as an in-place operation would.
      for (auto* t : {&p, &m, &v}) torch::autograd::impl::bump_version(*t);
    }
  }
  return loss;
}

}  // namespace loci::models
