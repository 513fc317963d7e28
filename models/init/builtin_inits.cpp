// The initialisers loci ships. Each reads only the InitOptions keys its registration names.

#include "models/init/init_registry.hpp"
#include "models/positions/sinusoid.hpp"

#include <cmath>
#include <stdexcept>

namespace loci::models {
namespace {

void require_matrix(at::IntArrayRef shape, const std::string& name) {
  if (shape.size() != 2) throw std::invalid_argument("initialiser '" + name + "' needs a [tokens, d] shape");
}

torch::Tensor positions_for(at::IntArrayRef shape, const InitContext& context, const std::string& name) {
  if (!context.positions.defined())
    throw std::invalid_argument("initialiser '" + name + "' needs the tokens' positions");
  if (context.positions.size(0) != shape[0])
    throw std::invalid_argument("initialiser '" + name + "': positions cover " +
                                std::to_string(context.positions.size(0)) + " tokens, the tensor " +
                                std::to_string(shape[0]));
  return context.positions.to(torch::kFloat64);
}

// std
torch::Tensor normal(at::IntArrayRef shape, const InitOptions& o, const InitContext& c) {
  return at::normal(0.0, o.std(), shape, c.generator, torch::kFloat64);
}

// a
torch::Tensor uniform(at::IntArrayRef shape, const InitOptions& o, const InitContext& c) {
  return at::empty(shape, torch::kFloat64).uniform_(-o.a(), o.a(), c.generator);
}

// std; cut at +-2 std by drawing the uniform quantile inside the cut, so that no draw is wasted or clamped.
torch::Tensor truncated_normal(at::IntArrayRef shape, const InitOptions& o, const InitContext& c) {
  const double lo = 0.5 * (1.0 + std::erf(-2.0 / std::sqrt(2.0)));
  const double hi = 1.0 - lo;
  auto u = at::empty(shape, torch::kFloat64).uniform_(lo, hi, c.generator);
  return torch::erfinv(2.0 * u - 1.0) * (std::sqrt(2.0) * o.std());
}

// (no keys)
torch::Tensor zeros(at::IntArrayRef shape, const InitOptions&, const InitContext&) {
  return torch::zeros(shape, torch::kFloat64);
}

// gain; orthonormal rows or columns, whichever are fewer, with the QR sign ambiguity removed so the draw is unique.
torch::Tensor orthogonal(at::IntArrayRef shape, const InitOptions& o, const InitContext& c) {
  require_matrix(shape, "orthogonal");
  const int64_t rows = shape[0], cols = shape[1];
  const bool tall = rows >= cols;
  auto g = at::normal(0.0, 1.0, {std::max(rows, cols), std::min(rows, cols)}, c.generator, torch::kFloat64);
  auto [q, r] = at::linalg_qr(g);
  q = q * torch::sign(r.diagonal()).reshape({1, -1});
  return (tall ? q : q.t()).contiguous() * o.gain();
}

// scale, source, base
torch::Tensor from_sinusoidal(at::IntArrayRef shape, const InitOptions& o, const InitContext& c) {
  require_matrix(shape, "from_sinusoidal");
  torch::Tensor table;
  if (o.source() == SinusoidSource::index)
    table = sinusoid_table(torch::arange(shape[0], torch::kFloat64), shape[1], o.base());
  else
    table = sinusoid_table_nd(positions_for(shape, c, "from_sinusoidal"), shape[1], o.base());
  return table.to(torch::kFloat64) * o.scale();
}

// scale, mode. Coordinates are standardised per axis first, so that the scale, not the dataset's units, sets the norm.
torch::Tensor from_coordinates(at::IntArrayRef shape, const InitOptions& o, const InitContext& c) {
  require_matrix(shape, "from_coordinates");
  auto p = positions_for(shape, c, "from_coordinates");
  auto centred = p - p.mean(0, true);
  auto spread = centred.std(0, /*unbiased=*/false, /*keepdim=*/true);
  auto standard = centred / torch::where(spread > 0, spread, torch::ones_like(spread));
  const int64_t dims = p.size(1);
  torch::Tensor out;
  if (o.mode() == CoordinateMode::project) {
    // Gaussian columns over sqrt(dims) keep each output column at unit variance.
    auto w =
        at::normal(0.0, 1.0 / std::sqrt(static_cast<double>(dims)), {dims, shape[1]}, c.generator, torch::kFloat64);
    out = standard.matmul(w);
  } else {
    auto columns = torch::arange(shape[1], torch::kInt64).remainder(dims);
    out = standard.index_select(1, columns);
  }
  return out * o.scale();
}

}  // namespace

LOCI_REGISTER(InitInfo, init_info("normal", normal));
LOCI_REGISTER(InitInfo, init_info("uniform", uniform, "a"));
LOCI_REGISTER(InitInfo, init_info("truncated_normal", truncated_normal));
LOCI_REGISTER(InitInfo, init_info("zeros", zeros, ""));
LOCI_REGISTER(InitInfo, init_info("orthogonal", orthogonal, "gain"));
LOCI_REGISTER(InitInfo, init_info("from_sinusoidal", from_sinusoidal, "scale", {"source", "base"}));
LOCI_REGISTER(InitInfo, init_info("from_coordinates", from_coordinates, "scale", {"mode"}));

}  // namespace loci::models
