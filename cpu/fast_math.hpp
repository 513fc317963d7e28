// exp, ln and the logistic function written out for the inner loops of sim's models and of the fused kernels:
// branch-free so that GCC vectorises a loop over nodes, lanes or a row, and independent of the C library's libm, so
// the same inputs give the same bits on every machine. exp_fast is accurate to about 1 ulp on [-708, 708]; beyond,
// up to |x| ~ 1e9, it saturates at about 2^-1022 or 2^1023 (finite), and NaN or infinity give NaN. expf_fast is its
// single-precision twin (about 2 ulp on [-87, 88], saturating at about 2^-126 and 2^127).
#pragma once

#include "cpu/bit_cast.hpp"

#include <cmath>
#include <cstdint>

namespace loci::cpu {

inline double exp_fast(double x) {
  // Adding 1.5 * 2^52 rounds x / ln2 to an integer k that then sits in the low mantissa bits.
  constexpr double shifter = 0x1.8p52;
  const double shifted = std::fma(x, 1.4426950408889634, shifter);
  const double k = shifted - shifter;
  // Cody-Waite: ln2 in two parts so that k * ln2_hi is exact and r = x - k ln2 keeps its precision.
  const double r = std::fma(-k, 1.90821492927058770002e-10, std::fma(-k, 6.93147180369123816490e-01, x));
  // exp(r) for |r| <= ln2 / 2 by its Taylor series to degree 13 (truncation below 1e-17), by Horner's rule in
  // fused multiply-adds (std::fma, so that every build rounds alike: see cpu/clones.hpp).
  double p = 1.0 / 6227020800.0;
  p = std::fma(p, r, 1.0 / 479001600.0);
  p = std::fma(p, r, 1.0 / 39916800.0);
  p = std::fma(p, r, 1.0 / 3628800.0);
  p = std::fma(p, r, 1.0 / 362880.0);
  p = std::fma(p, r, 1.0 / 40320.0);
  p = std::fma(p, r, 1.0 / 5040.0);
  p = std::fma(p, r, 1.0 / 720.0);
  p = std::fma(p, r, 1.0 / 120.0);
  p = std::fma(p, r, 1.0 / 24.0);
  p = std::fma(p, r, 1.0 / 6.0);
  p = std::fma(p, r, 0.5);
  p = std::fma(p, r, 1.0);
  p = std::fma(p, r, 1.0);
  // 2^k built in the exponent field; the integer k is the difference of the two doubles' bit patterns. k is
  // clamped as a 32-bit integer: a clamp on x itself (a double) makes GCC split the loop on it and give up
  // vectorising, and 32-bit integer compares vectorise on plain SSE2.
  auto k_int = static_cast<std::int32_t>(bit_cast<std::int64_t>(shifted) - bit_cast<std::int64_t>(shifter));
  k_int = k_int < -1022 ? -1022 : k_int;
  k_int = k_int > 1023 ? 1023 : k_int;
  return p * bit_cast<double>(static_cast<std::int64_t>(k_int + 1023) << 52);
}

// exp in single precision, the same way: degree-7 Taylor on |r| <= ln2 / 2 (truncation 5e-9). ln2 in two parts
// again, the first with 9 bits so that k * ln2_hi is exact.
inline float expf_fast(float x) {
  constexpr float shifter = 0x1.8p23f;
  const float shifted = std::fma(x, 1.44269504f, shifter);
  const float k = shifted - shifter;
  const float r = std::fma(-k, -2.12194440e-4f, std::fma(-k, 0.693359375f, x));
  float p = 1.0f / 5040;
  p = std::fma(p, r, 1.0f / 720);
  p = std::fma(p, r, 1.0f / 120);
  p = std::fma(p, r, 1.0f / 24);
  p = std::fma(p, r, 1.0f / 6);
  p = std::fma(p, r, 0.5f);
  p = std::fma(p, r, 1.0f);
  p = std::fma(p, r, 1.0f);
  std::int32_t k_int = bit_cast<std::int32_t>(shifted) - bit_cast<std::int32_t>(shifter);
  k_int = k_int < -126 ? -126 : k_int;
  k_int = k_int > 127 ? 127 : k_int;
  return p * bit_cast<float>((k_int + 127) << 23);
}

// exp(v) for the softmax's and GELU's arguments, v <= 0 and -infinity included (a masked score): clamped at -87,
// where expf_fast is about 1.6e-38, so that -infinity gives a number rather than NaN.
inline float exp_nonpositive(float v) { return expf_fast(v < -87.0f ? -87.0f : v); }

// ln x for a normal (not subnormal) positive x: x = m 2^e with m in [sqrt(1/2), sqrt(2)), ln m = 2 atanh(f) with
// f = (m - 1) / (m + 1), |f| <= 0.172, by its series to f^17. Within 6 ulp of the exact value, the worst for m near
// sqrt(1/2) and sqrt(2), where the series' truncation (about 3e-16) shows; ample for Box-Muller's radius, and kept as
// it is because the network generators' bytes follow from it.
inline double log_positive(double x) {
  const std::uint64_t b = bit_cast<std::uint64_t>(x);
  // Mantissas above sqrt(2)'s take the exponent of 1/2 instead of 1. Integer arithmetic throughout (and 32-bit
  // for the conversion to double) so that the x86-64-v3 clone vectorises it too.
  const auto mantissa = static_cast<std::int64_t>(b & 0x000FFFFFFFFFFFFFull);
  const std::int64_t high = mantissa > 0x6A09E667F3BCDll ? 1 : 0;
  const double m = bit_cast<double>(static_cast<std::uint64_t>(mantissa | ((0x3FFll - high) << 52)));
  const double e = static_cast<double>(static_cast<std::int32_t>(static_cast<std::int64_t>(b >> 52) - 1023 + high));
  const double f = (m - 1.0) / (m + 1.0);
  const double s = f * f;
  double p = 1.0 / 17;
  p = std::fma(p, s, 1.0 / 15);
  p = std::fma(p, s, 1.0 / 13);
  p = std::fma(p, s, 1.0 / 11);
  p = std::fma(p, s, 1.0 / 9);
  p = std::fma(p, s, 1.0 / 7);
  p = std::fma(p, s, 1.0 / 5);
  p = std::fma(p, s, 1.0 / 3);
  const double twice_f = 2.0 * f;
  const double log_m = std::fma(twice_f, s * p, twice_f);
  // ln 2 in two parts: e * ln2_hi is exact.
  return std::fma(e, 6.93147180369123816490e-01, std::fma(e, 1.90821492927058770002e-10, log_m));
}

// 1 / (1 + e^-u) in single precision.
inline float logistic_float(float u) { return 1.0f / (1.0f + expf_fast(-u)); }

// 1 / (1 + e^-u)
inline double logistic(double u) { return 1.0 / (1.0 + exp_fast(-u)); }

}  // namespace loci::cpu
