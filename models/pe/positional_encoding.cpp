#include "models/pe/positional_encoding.hpp"

#include <algorithm>

#include "models/dropout.hpp"

#include <map>
#include <stdexcept>

#include "core/registry.hpp"

namespace loci::models {

PositionalEncodingImpl::PositionalEncodingImpl(PEOptions options, PEContext context)
    : options_(std::move(options)),
      tokens_(context.positions.defined() ? context.positions.size(0) : 0),
      d_model_(context.d_model),
      heads_(context.heads),
      placements_(context.placements),
      positions_(context.positions.defined() ? context.positions.to(torch::kFloat32).contiguous() : torch::Tensor()),
      generator_(context.generator) {
  if (!positions_.defined() || positions_.dim() != 2 || tokens_ < 1)
    throw std::invalid_argument("PE '" + options_.type() + "' needs the tokens' positions as a [tokens, dims] tensor");
  if (d_model_ < 1 || heads_ < 1 || d_model_ % heads_ != 0)
    throw std::invalid_argument("PE '" + options_.type() + "': d_model must be a positive multiple of heads");
  if (placements_ < 1) throw std::invalid_argument("PE '" + options_.type() + "': needs at least one placement");
}

torch::Tensor PositionalEncodingImpl::matrix(int64_t) const { return {}; }

torch::Tensor PositionalEncodingImpl::add(const torch::Tensor& x, int64_t placement, int64_t prefix) const {
  check_placement(placement);
  auto out = x;
  auto m = matrix(placement);
  if (m.defined()) {
    // Zero rows for the prefix tokens let one broadcast add serve with and without a CLS token.
    out = x + (prefix > 0 ? torch::constant_pad_nd(m, {0, 0, prefix, 0}) : m);
  }
  if (dropout_ > 0.0) out = models::dropout(out, dropout_, is_training() || dropout_at_eval_);
  return out;
}

torch::Tensor PositionalEncodingImpl::attention_bias(int64_t, const torch::Tensor&, double) const { return {}; }

void PositionalEncodingImpl::rotate(torch::Tensor&, torch::Tensor&, int64_t) const {}

torch::Tensor PositionalEncodingImpl::table(int64_t placement) const {
  check_placement(placement);
  auto m = matrix(placement);
  return m.defined() ? m : torch::empty({0});
}

void PositionalEncodingImpl::check_placement(int64_t placement) const {
  if (placement < 0 || placement >= placements_)
    throw std::out_of_range("PE placement " + std::to_string(placement) + " of " + std::to_string(placements_));
}

torch::Tensor TablePEImpl::matrix(int64_t placement) const {
  check_placement(placement);
  return tables_.size() == 1 ? tables_.front() : tables_.at(static_cast<size_t>(placement));
}

void PositionalEncodingImpl::set_table(int64_t placement, const torch::Tensor&) {
  check_placement(placement);
  throw std::invalid_argument("PE '" + options_.type() +
                              "' adds no [tokens, d_model] matrix at a block's input, so "
                              "it has no rows to change");
}

void TablePEImpl::set_table(int64_t placement, const torch::Tensor& t) {
  check_placement(placement);
  if (t.dim() != 2 || t.size(0) != tokens() || t.size(1) != d_model())
    throw std::invalid_argument("PE '" + options().type() + "': a table must be [" + std::to_string(tokens()) + ", " +
                                std::to_string(d_model()) + "]");
  torch::NoGradGuard no_grad;
  if (tables_.size() == 1 && placements() > 1)
    for (int64_t p = 1; p < placements(); ++p)
      tables_.push_back(register_buffer("pe_" + std::to_string(p), tables_.front().detach().clone()));
  tables_.at(tables_.size() == 1 ? 0 : static_cast<size_t>(placement)).copy_(t);
}

void TablePEImpl::add_table(torch::Tensor table, bool learned) {
  if (table.dim() != 2 || table.size(0) != tokens() || table.size(1) != d_model())
    throw std::logic_error("PE '" + options().type() + "': a table must be [tokens, d_model]");
  const auto name = "pe_" + std::to_string(tables_.size());
  tables_.push_back(learned ? register_parameter(name, table, /*requires_grad=*/true) : register_buffer(name, table));
}

std::vector<torch::Tensor> TablePEImpl::draw_tables(const InitOptions& fallback) const {
  const InitOptions init = init_or(fallback);
  std::vector<torch::Tensor> tables;
  for (int64_t p = 0; p < placements(); ++p) tables.push_back(make_init({tokens(), d_model()}, init, init_context()));
  return tables;
}

LOCI_DEFINE_REGISTRY(PEInfo, "positional encoding")

namespace {

::loci::Registry<PEInfo>& pes() { return ::loci::Registry<PEInfo>::instance(); }

}  // namespace

const std::vector<ParamSpec>& PERegistry::keys(const std::string& name) { return pes().at(name).keys; }

double PEOptions::param(const std::string& name) const {
  const auto it = params_.find(name);
  if (it == params_.end())
    throw std::invalid_argument("positional encoding '" + type_ + "' has no key '" + name +
                                "' (declare it in the PE's keys())");
  return it->second;
}

c10::optional<InitOptions> PERegistry::effective_init(const PEOptions& options) {
  if (options.init()) return options.init();
  return pes().at(options.type()).default_init(options);
}

std::shared_ptr<PositionalEncodingImpl> PERegistry::create(const PEOptions& options, const PEContext& context) {
  return pes().at(options.type()).factory(options, context);
}

bool PERegistry::contains(const std::string& name) { return pes().contains(name); }

std::vector<std::string> PERegistry::names() { return pes().names(); }

}  // namespace loci::models
