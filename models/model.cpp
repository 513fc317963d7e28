#include "models/model.hpp"

#include <stdexcept>

namespace loci::models {
namespace {

// The masked tokens of each sample, [B, M] in token order, when every sample masks the same number M (sample_mask
// draws exactly round(ratio * T) per sample) and 0 < M < T; otherwise undefined (nothing to prune).
torch::Tensor masked_rows(const torch::Tensor& mask) {
  if (!mask.defined() || mask.dim() != 2) return {};
  const auto counts = mask.to(torch::kBool).sum(1);
  const auto m = counts.min().item<int64_t>();
  if (m == 0 || m == mask.size(1) || counts.max().item<int64_t>() != m) return {};
  return mask.to(torch::kBool).nonzero().select(1, 1).view({mask.size(0), m});
}

// predictions [B, M, C] of the rows `rows` [B, M] -> [B, T, C], the other rows 0 (no loss reads them).
torch::Tensor unmasked_rows_zero(const torch::Tensor& predictions, const torch::Tensor& rows, int64_t tokens) {
  const auto B = predictions.size(0), M = predictions.size(1), C = predictions.size(2);
  return torch::zeros({B, tokens, C}, predictions.options())
      .scatter(1, rows.unsqueeze(-1).expand({B, M, C}), predictions);
}

}  // namespace

ModelImpl::ModelImpl(const ModelOptions& options, const torch::Tensor& positions, at::Generator generator)
    : options_(options) {
  const auto& enc = options.encoder();
  encoder = register_module("encoder", Encoder(enc, positions, generator));
  if (options.task() == Task::classification) {
    classification = register_module("head", ClassificationHead(options.classification(), enc.d_model(), generator));
    if (classification->prefix() > 0 && encoder->pe().causal())
      throw std::invalid_argument("model: a causal PE cannot be combined with cls pooling");
  } else {
    const auto channels =
        options.masked_regression().channels() > 0 ? options.masked_regression().channels() : enc.in_channels();
    masked_regression =
        register_module("head", MaskedRegressionHead(options.masked_regression(), enc.d_model(), channels, generator));
  }
}

ModelOutput ModelImpl::forward(const ModelInput& input) {
  auto h = encoder->embed(input.x);
  const bool noisy = input.embedding_noise.defined();
  if (noisy) h = h + input.embedding_noise;
  ModelOutput out;
  if (masked_regression) {
    torch::Tensor rows;
    if (options_.prune_last_block() && !encoder->recording_attention()) rows = masked_rows(input.mask);
    out.hidden = encoder->encode(masked_regression->apply_mask(h, input.mask), 0, rows);
    out.output = masked_regression->forward(out.hidden);
    if (rows.defined()) out.output = unmasked_rows_zero(out.output, rows, encoder->tokens());
    return out;
  }
  h = classification->prepend(h);
  // Only cls pooling has a prefix, and its row is 0, so the head's token indices address the prefixed sequence too.
  torch::Tensor rows;
  if (options_.prune_last_block() && !encoder->recording_attention())
    rows = classification->query_index(h.size(0), encoder->tokens(), input.target_index);
  // The factored projection reads the raw channels, which the noise never touched.
  const bool factor = options_.factor_first_projection() && classification->prefix() == 0 && !noisy;
  out.hidden = encoder->encode(h, classification->prefix(), rows, factor ? input.x : torch::Tensor());
  out.output = classification->forward(out.hidden, input.target_index);
  if (out.output.dim() == 3) {  // pooling every
    out.dense = out.output;
    const auto B = out.dense.size(0), T = out.dense.size(1), C = out.dense.size(2);
    const torch::Tensor at = input.target_index.defined() ? input.target_index.to(torch::kInt64).reshape({B})
                                                          : torch::full({B}, T - 1, torch::kInt64);
    out.output = out.dense.gather(1, at.to(out.dense.device()).view({B, 1, 1}).expand({B, 1, C})).squeeze(1);
  }
  return out;
}

torch::Tensor ModelImpl::classify(const torch::Tensor& x, const torch::Tensor& target_index) {
  return forward({x, target_index, {}}).output;
}

torch::Tensor ModelImpl::reconstruct(const torch::Tensor& x, const torch::Tensor& mask) {
  return forward({x, {}, mask}).output;
}

torch::Tensor ModelImpl::loss(const ModelOutput& output, const ModelInput& input, const torch::Tensor& target,
                              double label_smoothing) const {
  if (classification && output.dense.defined())
    return dense_cross_entropy(output.dense, target, input.mask, label_smoothing);
  if (classification)
    return torch::cross_entropy_loss(output.output, target.to(torch::kInt64), {}, at::Reduction::Mean, -100,
                                     label_smoothing);
  return masked_mse(output.output, target, input.mask);
}

torch::Tensor ModelImpl::sample_mask(int64_t batch, at::Generator& generator) const {
  if (!masked_regression) throw std::logic_error("model: sample_mask needs the masked_regression task");
  const auto& o = masked_regression->options();
  return sample_token_mask(batch, tokens(), is_training() ? o.mask_ratio_train() : o.mask_ratio_eval(), generator);
}

std::vector<torch::Tensor> ModelImpl::attention_maps(const ModelInput& input) {
  torch::NoGradGuard no_grad;
  const bool was = encoder->recording_attention();
  encoder->record_attention(true);
  forward(input);
  auto maps = encoder->attention_maps();
  encoder->record_attention(was);
  return maps;
}

Model make_model(const ModelOptions& options, const torch::Tensor& positions, at::Generator generator) {
  return Model(options, positions, generator);
}

Model make_model(const ModelOptions& options, const torch::Tensor& positions, uint64_t seed) {
  return make_model(options, positions, make_generator(seed));
}

}  // namespace loci::models
