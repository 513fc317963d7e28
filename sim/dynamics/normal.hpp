// Standard normal draws from one stream by the ziggurat method of Marsaglia and Tsang: about 99% of draws cost one
// raw 64-bit value, two table reads and a compare, several times cheaper than Rng::normal's polar method. Only
// Rng's raw output is used, so the values depend on the stream alone. Used for initial states, observation noise
// and tests; a simulation's per-step noise comes from NormalLanes (normal_lanes.hpp), which draws for all runs of
// a batch at once in vector registers, where the ziggurat's occasional second draw would stall every lane.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>

#include "sim/random/stream.hpp"

namespace loci::sim::dynamics {

// 256 layers of equal area under exp(-x^2/2). x[0] is the base strip's width (it holds the tail's area too),
// x[1] = r where the tail starts, x[256] = 0; f[i] = exp(-x[i]^2/2).
struct ZigguratTables {
  double r;
  double x[257];
  double f[257];
};

const ZigguratTables& ziggurat_tables();

// The slow paths, taken by about 1% of draws: the tail beyond r, and the wedge test.
double ziggurat_tail(Rng& rng, bool negative);
double ziggurat_wedge(Rng& rng, unsigned layer, double x);

inline double ziggurat_normal(Rng& rng) {
  static const ZigguratTables& t = ziggurat_tables();
  const std::uint64_t bits = rng();
  const auto layer = static_cast<unsigned>(bits & 0xFF);
  // The top 53 bits as a signed uniform in [-1, 1); the layer uses the low 8, so the two are independent.
  // (Through int64: converting an unsigned 64-bit integer costs a branch on x86-64.)
  const double u = static_cast<double>(static_cast<std::int64_t>(bits >> 11)) * 0x1.0p-52 - 1.0;
  const double x = u * t.x[layer];
  if (std::abs(x) < t.x[layer + 1]) return x;
  return layer == 0 ? ziggurat_tail(rng, u < 0) : ziggurat_wedge(rng, layer, x);
}

// out[k * stride] = ziggurat_normal(rng) for k = 0 .. count-1, in order.
void normal_fill(Rng& rng, std::size_t count, double* out, std::size_t stride = 1);

// Single-precision normals, twice as many per raw value: each half of a 64-bit output (low half first) picks a
// layer with 8 bits and a signed uniform with the other 24, as many as a float holds. For float32 data such as
// the smooth fields of sim/volume, where the draws are the main cost.
void normal_fill(Rng& rng, std::size_t count, float* out);

}  // namespace loci::sim::dynamics
