#include "models/pe/rotary.hpp"

#include <stdexcept>
#include <string>

namespace loci::models {

RotaryPEImpl::RotaryPEImpl(const PEOptions& options, const PEContext& context, const torch::Tensor& angles)
    : PositionalEncodingImpl(options, context) {
  if (angles.dim() != 2 || angles.size(0) != tokens() || 2 * angles.size(1) != d_model() / heads())
    throw std::logic_error("rotary PE: angles must be [tokens, head_dim / 2]");
  cos_ = register_buffer("cos", torch::cos(angles).to(torch::kFloat32));
  sin_ = register_buffer("sin", torch::sin(angles).to(torch::kFloat32));
}

void RotaryPEImpl::rotate(torch::Tensor& q, torch::Tensor& k, int64_t placement) const {
  check_placement(placement);
  q = apply_rotary(q, cos_, sin_);
  k = apply_rotary(k, cos_, sin_);
}

torch::Tensor apply_rotary(const torch::Tensor& x, const torch::Tensor& cos, const torch::Tensor& sin) {
  std::vector<int64_t> paired(x.sizes().begin(), x.sizes().end());
  paired.back() /= 2;
  paired.push_back(2);
  auto pairs = x.reshape(paired);
  auto a = pairs.select(-1, 0);
  auto b = pairs.select(-1, 1);
  return torch::stack({a * cos - b * sin, a * sin + b * cos}, -1).reshape(x.sizes());
}

int64_t rotary_head_dim(const PEContext& context, const char* type) {
  const auto dh = context.heads > 0 ? context.d_model / context.heads : 0;
  if (dh < 2 || dh % 2 != 0) throw std::invalid_argument(std::string(type) + " needs an even head dimension");
  return dh;
}

}  // namespace loci::models
