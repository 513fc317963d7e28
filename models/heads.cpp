#include "models/heads.hpp"

#include "models/init/linear_init.hpp"
#include "models/linear.hpp"

#include <torch/nn/functional/loss.h>

#include <cmath>
#include <stdexcept>

namespace loci::models {

ClassificationHeadImpl::ClassificationHeadImpl(const ClassificationOptions& options, int64_t d_model,
                                               at::Generator generator)
    : options_(options) {
  pooling_ = options.pooling();
  if (options.classes() < 1) throw std::invalid_argument("classification: needs at least one class");
  if (pooling_ == Pooling::cls)
    cls_token = register_parameter("cls_token", at::normal(0.0, 0.02, {d_model}, generator));
  readout = register_module("readout", torch::nn::Linear(d_model, options.classes()));
  redraw_linear_layers(*this, generator);
}

torch::Tensor ClassificationHeadImpl::prepend(const torch::Tensor& h) const {
  if (!cls_token.defined()) return h;
  return torch::cat({cls_token.view({1, 1, -1}).expand({h.size(0), 1, h.size(2)}), h}, 1);
}

torch::Tensor ClassificationHeadImpl::query_index(int64_t batch, int64_t tokens,
                                                  const torch::Tensor& target_index) const {
  auto all = [&](int64_t i) { return torch::full({batch}, i, torch::kInt64); };
  switch (pooling_) {
    case Pooling::last:
      return all(tokens - 1);
    case Pooling::cls:
      return all(0);
    case Pooling::target:
      if (!target_index.defined() || target_index.numel() != batch)
        throw std::invalid_argument("classification: target pooling needs one target_index per sample");
      return target_index.to(torch::kInt64).reshape({batch});
    case Pooling::mean:
    case Pooling::every:
      break;
  }
  return {};
}

torch::Tensor ClassificationHeadImpl::forward(const torch::Tensor& hidden, const torch::Tensor& target_index) {
  if (pooling_ == Pooling::every) return linear(readout, hidden);
  if (hidden.size(1) == 1 && pooling_ != Pooling::mean) return linear(readout, hidden.squeeze(1));
  torch::Tensor pooled;
  switch (pooling_) {
    case Pooling::every:
      break;  // returned above
    case Pooling::last:
      pooled = hidden.select(1, hidden.size(1) - 1);
      break;
    case Pooling::cls:
      pooled = hidden.select(1, 0);
      break;
    case Pooling::mean:
      pooled = hidden.mean(1);
      break;
    case Pooling::target: {
      auto idx = query_index(hidden.size(0), hidden.size(1), target_index);
      pooled = hidden.gather(1, idx.view({-1, 1, 1}).expand({hidden.size(0), 1, hidden.size(2)})).squeeze(1);
      break;
    }
  }
  return linear(readout, pooled);
}

torch::Tensor dense_cross_entropy(const torch::Tensor& logits, const torch::Tensor& classes,
                                  const torch::Tensor& counted, double label_smoothing) {
  const auto C = logits.size(-1);
  const torch::Tensor per_token = torch::nn::functional::cross_entropy(
      logits.reshape({-1, C}), classes.reshape({-1}).to(torch::kInt64),
      torch::nn::functional::CrossEntropyFuncOptions().reduction(torch::kNone).label_smoothing(label_smoothing));
  if (!counted.defined()) return per_token.mean();
  const torch::Tensor weight = counted.reshape({-1}).to(per_token.scalar_type());
  return (per_token * weight).sum() / weight.sum().clamp_min(1.0);
}

MaskedRegressionHeadImpl::MaskedRegressionHeadImpl(const MaskedRegressionOptions& options, int64_t d_model,
                                                   int64_t channels, at::Generator generator)
    : options_(options) {
  for (double r : {options.mask_ratio_train(), options.mask_ratio_eval()})
    if (r < 0.0 || r > 1.0) throw std::invalid_argument("masked regression: mask ratios must lie in [0, 1]");
  mask_embedding = register_parameter("mask_embedding", at::normal(0.0, 0.02, {d_model}, generator));
  output = register_module("output", torch::nn::Linear(d_model, channels));
  redraw_linear_layers(*this, generator);
}

torch::Tensor MaskedRegressionHeadImpl::apply_mask(const torch::Tensor& embedded, const torch::Tensor& mask) const {
  if (!mask.defined() || mask.dim() != 2 || mask.size(0) != embedded.size(0) || mask.size(1) != embedded.size(1))
    throw std::invalid_argument("masked regression: the mask must be [batch, tokens]");
  return torch::where(mask.to(torch::kBool).unsqueeze(-1), mask_embedding.view({1, 1, -1}), embedded);
}

torch::Tensor MaskedRegressionHeadImpl::forward(const torch::Tensor& hidden) { return linear(output, hidden); }

torch::Tensor sample_token_mask(int64_t batch, int64_t tokens, double ratio, at::Generator& generator) {
  const auto count = static_cast<int64_t>(std::llround(ratio * static_cast<double>(tokens)));
  // The rank of each token in a random order: the `count` lowest ranks are masked, exactly `count` per sample.
  auto rank = torch::rand({batch, tokens}, generator).argsort(1, false).argsort(1, false);
  return rank < count;
}

torch::Tensor masked_mse(const torch::Tensor& prediction, const torch::Tensor& target, const torch::Tensor& mask) {
  if (prediction.sizes() != target.sizes() || prediction.dim() != 3)
    throw std::invalid_argument("masked_mse: prediction and target must both be [B, T, C]");
  auto m = mask.to(prediction.scalar_type()).unsqueeze(-1);
  auto count = m.sum() * static_cast<double>(prediction.size(2));
  return ((prediction - target).pow(2) * m).sum() / count.clamp_min(1.0);
}

}  // namespace loci::models
