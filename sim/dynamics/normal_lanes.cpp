#include "cpu/clones.hpp"  // first: it sets how the loops below are compiled

#include "sim/dynamics/normal_lanes.hpp"

#include "cpu/bit_cast.hpp"
#include "cpu/fast_math.hpp"

#include <cmath>

// The transform's sqrt vectorises only with -fno-math-errno, which sim/CMakeLists.txt sets for this file: a
// function-level pragma cannot change it, and its argument is never negative here.

namespace loci::sim::dynamics {

namespace {

inline std::uint64_t rotl(std::uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

inline double from_bits(std::uint64_t b) { return cpu::bit_cast<double>(b); }
inline std::uint64_t to_bits(double d) { return cpu::bit_cast<std::uint64_t>(d); }

// `count` draws of the G streams whose state words start at state[0] (word w of stream l at state[w * stride +
// l]) into out[k * stride + l]. xoshiro256** as in Rng, with * 5 and * 9 as shifts and adds (vector units without
// AVX-512DQ have no 64-bit multiply); the state sits in local arrays so that it stays in registers.
template <std::size_t G>
LOCI_CLONES void draw_raw(std::uint64_t* state, std::size_t stride, std::size_t count, std::uint64_t* out) {
  std::uint64_t s0[G], s1[G], s2[G], s3[G];
  for (std::size_t l = 0; l < G; ++l) {
    s0[l] = state[l], s1[l] = state[stride + l], s2[l] = state[2 * stride + l], s3[l] = state[3 * stride + l];
  }
  for (std::size_t k = 0; k < count; ++k) {
    std::uint64_t* row = out + k * stride;
#pragma omp simd
    for (std::size_t l = 0; l < G; ++l) {
      const std::uint64_t times5 = s1[l] + (s1[l] << 2);
      const std::uint64_t rotated = rotl(times5, 7);
      row[l] = rotated + (rotated << 3);
      const std::uint64_t t = s1[l] << 17;
      const std::uint64_t x2 = s2[l] ^ s0[l];
      const std::uint64_t x3 = s3[l] ^ s1[l];
      s1[l] ^= x2;
      s0[l] ^= x3;
      s2[l] = x2 ^ t;
      s3[l] = rotl(x3, 45);
    }
  }
  for (std::size_t l = 0; l < G; ++l) {
    state[l] = s0[l], state[stride + l] = s1[l], state[2 * stride + l] = s2[l], state[3 * stride + l] = s3[l];
  }
}

// One Box-Muller pair from a radius draw and an angle draw: cos_out = r cos(2 pi v), sin_out = r sin(2 pi v) with
// r = sqrt(-2 ln u), u uniform in (0, 1] and v in [0, 1), 52 bits each (so |normal| <= 8.5).
template <bool with_sine>
LOCI_CLONES void box_muller(std::size_t n, const std::uint64_t* radius_bits, const std::uint64_t* angle_bits,
                            double* cos_out, double* sin_out) {
  constexpr std::uint64_t one = 0x3FF0000000000000ull;
  constexpr double shifter = 0x1.8p52;  // adding it rounds to an integer held in the low mantissa bits
#pragma omp simd
  for (std::size_t j = 0; j < n; ++j) {
    const double u = 2.0 - from_bits((radius_bits[j] >> 12) | one);
    const double v = from_bits((angle_bits[j] >> 12) | one) - 1.0;
    const double r = std::sqrt(-2.0 * cpu::log_positive(u));
    // 2 pi v = q pi/2 + a with the quadrant q = round(4 v) and |a| <= pi/4; v - q/4 is exact.
    const double q_shifted = 4.0 * v + shifter;
    const double a = 6.283185307179586 * (v - 0.25 * (q_shifted - shifter));
    const double a2 = a * a;
    double sp = -1.0 / 1307674368000.0;  // sin a = a + a^3 (-1/3! + a^2 (1/5! - ...)), to a^15
    sp = std::fma(sp, a2, 1.0 / 6227020800.0);
    sp = std::fma(sp, a2, -1.0 / 39916800.0);
    sp = std::fma(sp, a2, 1.0 / 362880.0);
    sp = std::fma(sp, a2, -1.0 / 5040.0);
    sp = std::fma(sp, a2, 1.0 / 120.0);
    sp = std::fma(sp, a2, -1.0 / 6.0);
    const double sin_a = std::fma(a * a2, sp, a);
    double cp = 1.0 / 20922789888000.0;  // cos a = 1 + a^2 (-1/2! + a^2 (1/4! - ...)), to a^16
    cp = std::fma(cp, a2, -1.0 / 87178291200.0);
    cp = std::fma(cp, a2, 1.0 / 479001600.0);
    cp = std::fma(cp, a2, -1.0 / 3628800.0);
    cp = std::fma(cp, a2, 1.0 / 40320.0);
    cp = std::fma(cp, a2, -1.0 / 720.0);
    cp = std::fma(cp, a2, 1.0 / 24.0);
    cp = std::fma(cp, a2, -0.5);
    const double cos_a = std::fma(a2, cp, 1.0);
    // Quadrant q: cos(2 pi v) = cos a, -sin a, -cos a, sin a and sin(2 pi v) = sin a, cos a, -sin a, -cos a.
    // Selections by bit masks rather than conditionals: GCC vectorises those for AVX2 too.
    const std::uint64_t q = to_bits(q_shifted);  // its low bits are q (0 to 4; 4 is 0 again)
    const std::uint64_t odd = 0 - (q & 1);       // all ones when q is odd
    const std::uint64_t sin_bits = to_bits(sin_a), cos_bits = to_bits(cos_a);
    const double c = from_bits(((sin_bits & odd) | (cos_bits & ~odd)) ^ (((q + 1) & 2) << 62));
    cos_out[j] = r * c;
    if (with_sine) sin_out[j] = r * from_bits(((cos_bits & odd) | (sin_bits & ~odd)) ^ ((q & 2) << 62));
  }
}

}  // namespace

NormalLanes::NormalLanes(const std::vector<Rng>& streams) : lanes_(streams.size()), state_(4 * streams.size()) {
  for (std::size_t l = 0; l < lanes_; ++l) {
    const auto words = streams[l].state();
    for (std::size_t w = 0; w < 4; ++w) state_[w * lanes_ + l] = words[w];
  }
}

void NormalLanes::fill(std::size_t count, double* out) {
  const std::size_t half = (count + 1) / 2;
  raw_.resize(2 * half * lanes_);
  // Groups of 8 and 4 streams fill an AVX-512 or AVX2 register; the rest go one by one.
  std::size_t l = 0;
  for (; lanes_ - l >= 8; l += 8) draw_raw<8>(state_.data() + l, lanes_, 2 * half, raw_.data() + l);
  for (; lanes_ - l >= 4; l += 4) draw_raw<4>(state_.data() + l, lanes_, 2 * half, raw_.data() + l);
  for (; l < lanes_; ++l) draw_raw<1>(state_.data() + l, lanes_, 2 * half, raw_.data() + l);
  // Rows k < half are radii, rows half + k angles; the sines fill rows half.. count-1 (one fewer if count is odd).
  const std::size_t pairs = half * lanes_, sines = (count - half) * lanes_;
  const std::uint64_t* angles = raw_.data() + pairs;
  box_muller<true>(sines, raw_.data(), angles, out, out + pairs);
  box_muller<false>(pairs - sines, raw_.data() + sines, angles + sines, out + sines, nullptr);
}

}  // namespace loci::sim::dynamics
