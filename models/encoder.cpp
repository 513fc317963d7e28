#include "models/encoder.hpp"

#include "models/init/init_registry.hpp"
#include "models/init/linear_init.hpp"
#include "models/linear.hpp"

#include <cmath>
#include <stdexcept>

namespace loci::models {

EncoderImpl::EncoderImpl(const EncoderOptions& options, const torch::Tensor& positions, at::Generator generator)
    : options_(options) {
  if (!positions.defined() || positions.dim() != 2 || positions.size(0) < 1)
    throw std::invalid_argument("encoder: positions must be a [tokens, dims] tensor");
  if (options.blocks() < 1) throw std::invalid_argument("encoder: needs at least one block");
  tokens_ = positions.size(0);
  const PePlacement placement = options.pe().placement();
  input_only_ = placement == PePlacement::input_only;
  shared_ = placement == PePlacement::shared;

  embedding = register_module("embedding", torch::nn::Linear(options.in_channels(), options.d_model()));
  PEContext context;
  context.d_model = options.d_model();
  context.heads = options.heads();
  context.placements = placement == PePlacement::per_block ? options.blocks() : 1;
  context.positions = positions;
  context.generator = options.pe().draw_seed() ? make_generator(*options.pe().draw_seed()) : generator;
  pe_ = register_module("pe", PERegistry::create(options.pe(), context));

  const auto hidden = static_cast<int64_t>(std::llround(options.mlp_ratio() * static_cast<double>(options.d_model())));
  auto block_options = BlockOptions()
                           .d_model(options.d_model())
                           .heads(options.heads())
                           .mlp_hidden(hidden)
                           .activation(options.activation())
                           .activation_after_both(options.activation_after_both())
                           .norm(options.norm())
                           .dropout(options.dropout())
                           .layer_norm_eps(options.layer_norm_eps());
  block_list_ = register_module("blocks", torch::nn::ModuleList());
  for (int64_t b = 0; b < options.blocks(); ++b) {
    blocks_.emplace_back(block_options);
    block_list_->push_back(blocks_.back());
  }
  if (options.final_norm())
    final_norm = register_module(
        "final_norm",
        torch::nn::LayerNorm(torch::nn::LayerNormOptions({options.d_model()}).eps(options.layer_norm_eps())));
  redraw_linear_layers(*this, generator);
}

BlockPE EncoderImpl::block_pe(int64_t block, int64_t prefix) const {
  BlockPE out;
  out.pe = pe_.get();
  out.prefix = prefix;
  out.active = !input_only_ || block == 0;
  out.placement = (input_only_ || shared_) ? 0 : block;
  return out;
}

torch::Tensor EncoderImpl::embed(const torch::Tensor& x) {
  if (x.dim() != 3 || x.size(1) != tokens_ || x.size(2) != options_.in_channels())
    throw std::invalid_argument("encoder: input must be [batch, " + std::to_string(tokens_) + ", " +
                                std::to_string(options_.in_channels()) + "]");
  return linear(embedding, x);
}

torch::Tensor EncoderImpl::encode(const torch::Tensor& h, int64_t prefix, const torch::Tensor& query_index,
                                  const torch::Tensor& raw) {
  auto x = h;
  const auto last = static_cast<int64_t>(blocks_.size()) - 1;
  // Worth it only when the input has far fewer channels than the model has dimensions.
  LinearInput input;
  if (raw.defined() && prefix == 0 && 4 * options_.in_channels() <= options_.d_model())
    input = {raw, embedding->weight, embedding->bias};
  for (int64_t b = 0; b <= last; ++b)
    x = blocks_[static_cast<size_t>(b)]->forward(x, block_pe(b, prefix), b == last ? query_index : torch::Tensor(),
                                                 b == 0 ? input : LinearInput());
  if (final_norm) x = final_norm(x);
  return x;
}

torch::Tensor EncoderImpl::forward(const torch::Tensor& x) { return encode(embed(x)); }

std::vector<torch::Tensor> EncoderImpl::pe_matrices() const {
  torch::NoGradGuard no_grad;
  std::vector<torch::Tensor> out;
  for (int64_t p = 0; p < pe_->placements(); ++p) out.push_back(pe_->table(p).detach().clone());
  return out;
}

void EncoderImpl::set_pe_matrices(const std::vector<torch::Tensor>& tables) {
  if (static_cast<int64_t>(tables.size()) != pe_->placements())
    throw std::invalid_argument("the PE has " + std::to_string(pe_->placements()) + " placements, not " +
                                std::to_string(tables.size()));
  for (int64_t p = 0; p < pe_->placements(); ++p) pe_->set_table(p, tables[static_cast<size_t>(p)]);
}

std::vector<torch::Tensor> EncoderImpl::position_logits() const {
  torch::NoGradGuard no_grad;
  std::vector<torch::Tensor> out;
  const int64_t d = options_.d_model(), heads = options_.heads(), dh = d / heads;
  for (int64_t b = 0; b < static_cast<int64_t>(blocks_.size()); ++b) {
    const BlockPE where = block_pe(b, 0);
    const torch::Tensor p = where.active ? pe_->matrix(where.placement) : torch::Tensor();
    if (!p.defined()) {
      out.push_back(torch::empty({0}));
      continue;
    }
    // in_proj's rows are q, k, v in that order; per head, P Wq_h^T (P Wk_h^T)^T, scaled as the logits are.
    const torch::Tensor w = blocks_[static_cast<size_t>(b)]->attention->in_proj->weight.detach().to(torch::kFloat32);
    const torch::Tensor pf = p.detach().to(torch::kFloat32);
    const torch::Tensor q = torch::matmul(pf, w.narrow(0, 0, d).t()).view({tokens_, heads, dh}).transpose(0, 1);
    const torch::Tensor k = torch::matmul(pf, w.narrow(0, d, d).t()).view({tokens_, heads, dh}).transpose(0, 1);
    out.push_back((torch::matmul(q, k.transpose(1, 2)) / std::sqrt(static_cast<double>(dh))).contiguous());
  }
  return out;
}

void EncoderImpl::record_attention(bool on) {
  recording_ = on;
  for (auto& block : blocks_) block->attention->record(on);
}

std::vector<torch::Tensor> EncoderImpl::attention_maps() const {
  std::vector<torch::Tensor> out;
  for (const auto& block : blocks_) out.push_back(block->attention->last_map());
  return out;
}

}  // namespace loci::models
