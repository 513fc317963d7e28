#include "sim/dynamics/normal.hpp"

namespace loci::sim::dynamics {

namespace {

constexpr int kLayers = 256;

double density(double x) { return std::exp(-0.5 * x * x); }

// Area of one layer when the tail starts at r: the base rectangle r * f(r) plus the tail beyond r.
double layer_area(double r) { return r * density(r) + std::sqrt(M_PI / 2) * std::erfc(r / std::sqrt(2.0)); }

// Stacks layers of the area that r implies and reports how the top comes out: > 0 when the layers reach the
// peak before all are used (r too small), < 0 when they fall short of it (r too large).
double stack(double r, double* xs) {
  const double area = layer_area(r);
  double x = r;
  if (xs) xs[1] = r;
  for (int i = 1; i < kLayers - 1; ++i) {
    const double next = density(x) + area / x;
    if (next >= 1.0) return 1.0;
    x = std::sqrt(-2.0 * std::log(next));
    if (xs) xs[i + 1] = x;
  }
  // The last layer must end exactly at the peak: its top is f(x) + area / x = 1.
  return density(x) + area / x - 1.0;
}

ZigguratTables build() {
  double lo = 2.0, hi = 5.0;
  for (int it = 0; it < 200; ++it) {
    const double mid = 0.5 * (lo + hi);
    (stack(mid, nullptr) > 0 ? lo : hi) = mid;
  }
  ZigguratTables t{};
  t.r = hi;
  stack(t.r, t.x);
  t.x[0] = layer_area(t.r) / density(t.r);
  t.x[kLayers] = 0.0;
  for (int i = 0; i <= kLayers; ++i) t.f[i] = density(t.x[i]);
  return t;
}

}  // namespace

const ZigguratTables& ziggurat_tables() {
  static const ZigguratTables tables = build();
  return tables;
}

double ziggurat_tail(Rng& rng, bool negative) {
  const double r = ziggurat_tables().r;
  // Marsaglia's tail method: exponential proposals beyond r, accepted under the Gaussian tail.
  for (;;) {
    const double a = -std::log(1.0 - rng.uniform()) / r;
    const double b = -std::log(1.0 - rng.uniform());
    if (b + b > a * a) return negative ? -(r + a) : r + a;
  }
}

double ziggurat_wedge(Rng& rng, unsigned layer, double x) {
  // Between the layer's rectangle and the curve: accept under the curve, else start over with a fresh draw.
  const ZigguratTables& t = ziggurat_tables();
  const double y = t.f[layer] + rng.uniform() * (t.f[layer + 1] - t.f[layer]);
  return y < std::exp(-0.5 * x * x) ? x : ziggurat_normal(rng);
}

void normal_fill(Rng& rng, std::size_t count, double* out, std::size_t stride) {
  Rng local = rng;  // a copy the compiler can keep in registers through the loop
  for (std::size_t k = 0; k < count; ++k) out[k * stride] = ziggurat_normal(local);
  rng = local;
}

namespace {

inline float ziggurat_half(std::uint32_t bits, Rng& rng, const ZigguratTables& t) {
  const unsigned layer = bits & 0xFF;
  // The top 24 bits as a signed uniform in [-1, 1).
  const double u = static_cast<double>(static_cast<std::int32_t>(bits & 0xFFFFFF00u) / 256) * 0x1.0p-23;
  const double x = u * t.x[layer];
  if (std::abs(x) < t.x[layer + 1]) return static_cast<float>(x);
  return static_cast<float>(layer == 0 ? ziggurat_tail(rng, u < 0) : ziggurat_wedge(rng, layer, x));
}

}  // namespace

void normal_fill(Rng& rng, std::size_t count, float* out) {
  static const ZigguratTables& t = ziggurat_tables();
  Rng local = rng;
  std::size_t k = 0;
  for (; k + 1 < count; k += 2) {
    const std::uint64_t bits = local();
    out[k] = ziggurat_half(static_cast<std::uint32_t>(bits), local, t);
    out[k + 1] = ziggurat_half(static_cast<std::uint32_t>(bits >> 32), local, t);
  }
  if (k < count) out[k] = ziggurat_half(static_cast<std::uint32_t>(local()), local, t);
  rng = local;
}

}  // namespace loci::sim::dynamics
