#include "models/positions/sinusoid.hpp"

#include <stdexcept>

namespace loci::models {
namespace {

torch::Tensor as_positions(const torch::Tensor& positions) {
  if (!positions.defined() || positions.dim() != 2)
    throw std::invalid_argument("positions must be a [tokens, dims] tensor");
  // Double precision keeps large coordinates times high frequencies exact to float32 after the sine.
  return positions.to(torch::kFloat64);
}

}  // namespace

torch::Tensor sinusoid_table(const torch::Tensor& coordinate, int64_t width, double base) {
  auto c = coordinate.to(torch::kFloat64).reshape({-1, 1});
  auto out = torch::zeros({c.size(0), width}, torch::kFloat64);
  const int64_t pairs = width / 2;
  if (pairs > 0) {
    auto k = torch::arange(pairs, torch::kFloat64);
    auto freq = torch::pow(torch::tensor(base, torch::kFloat64), -2.0 * k / static_cast<double>(width));
    auto angle = c * freq.reshape({1, -1});
    auto body = torch::stack({torch::sin(angle), torch::cos(angle)}, 2).reshape({c.size(0), 2 * pairs});
    out.narrow(1, 0, 2 * pairs).copy_(body);
  }
  return out.to(torch::kFloat32);
}

torch::Tensor sinusoid_table_nd(const torch::Tensor& positions, int64_t width, double base) {
  auto p = as_positions(positions);
  const int64_t dims = p.size(1);
  const int64_t share = 2 * (width / (2 * dims));
  if (share == 0) throw std::invalid_argument("width too small to give every position axis a sinusoid pair");
  auto out = torch::zeros({p.size(0), width}, torch::kFloat32);
  for (int64_t a = 0; a < dims; ++a) out.narrow(1, a * share, share).copy_(sinusoid_table(p.select(1, a), share, base));
  return out;
}

torch::Tensor rotary_angles(const torch::Tensor& positions, int64_t pairs, double base) {
  auto p = as_positions(positions);
  const int64_t dims = p.size(1);
  const int64_t share = pairs / dims;
  if (share == 0) throw std::invalid_argument("head dimension too small to rotate along every position axis");
  auto out = torch::zeros({p.size(0), pairs}, torch::kFloat64);
  auto k = torch::arange(share, torch::kFloat64);
  auto freq = torch::pow(torch::tensor(base, torch::kFloat64), -k / static_cast<double>(share));
  for (int64_t a = 0; a < dims; ++a)
    out.narrow(1, a * share, share).copy_(p.select(1, a).reshape({-1, 1}) * freq.reshape({1, -1}));
  return out;
}

torch::Tensor index_positions(int64_t tokens) { return torch::arange(tokens, torch::kFloat32).reshape({tokens, 1}); }

torch::Tensor grid_positions(int64_t rows, int64_t cols) {
  auto t = torch::arange(rows * cols, torch::kInt64);
  return torch::stack({t.div(cols, "floor"), t.remainder(cols)}, 1).to(torch::kFloat32);
}

}  // namespace loci::models
