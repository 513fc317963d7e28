// Random streams that depend only on (seed, stream name, index): sample i of a dataset draws from its own stream,
// so results never depend on thread count, shard size or launch order. The generator and the distributions are
// written out here (not std::) so that the same seed gives the same numbers with any standard library.
#pragma once

#include <array>
#include <cmath>
#include <cstdint>
#include <string_view>

namespace loci::sim {

// GCC's 128-bit integer, declared once as an extension so -Wpedantic stays quiet where this header is included.
__extension__ typedef unsigned __int128 uint128;

constexpr std::uint64_t splitmix64(std::uint64_t& state) {
  std::uint64_t z = (state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

// FNV-1a: folds a stream name ("train", "test", ...) into the seed.
constexpr std::uint64_t hash_name(std::string_view s) {
  std::uint64_t h = 0xCBF29CE484222325ull;
  for (char c : s) h = (h ^ static_cast<unsigned char>(c)) * 0x100000001B3ull;
  return h;
}

// xoshiro256** with distributions. Satisfies UniformRandomBitGenerator, so std::shuffle works too
// (std::shuffle's algorithm is library-specific: use Rng::shuffle where bytes must match everywhere).
class Rng {
 public:
  using result_type = std::uint64_t;

  explicit Rng(std::uint64_t seed) {
    std::uint64_t sm = seed;
    for (auto& w : s_) w = splitmix64(sm);
  }

  // The stream of item `index` in the named stream of a run seeded `seed`.
  static Rng stream(std::uint64_t seed, std::string_view name, std::uint64_t index) {
    std::uint64_t k = seed ^ 0x6A09E667F3BCC908ull;
    std::uint64_t a = splitmix64(k) ^ hash_name(name);
    std::uint64_t b = splitmix64(a) ^ index;
    return Rng(splitmix64(b));
  }

  // The generator's four state words, for code that advances several streams side by side in vector registers
  // (sim/dynamics/normal_lanes.cpp runs xoshiro256** itself from there).
  std::array<std::uint64_t, 4> state() const { return {s_[0], s_[1], s_[2], s_[3]}; }

  static constexpr result_type min() { return 0; }
  static constexpr result_type max() { return ~result_type{0}; }

  result_type operator()() {
    const std::uint64_t result = rotl(s_[1] * 5, 7) * 9;
    const std::uint64_t t = s_[1] << 17;
    s_[2] ^= s_[0];
    s_[3] ^= s_[1];
    s_[1] ^= s_[2];
    s_[0] ^= s_[3];
    s_[2] ^= t;
    s_[3] = rotl(s_[3], 45);
    return result;
  }

  // Uniform integer in [0, n), unbiased (Lemire's multiply-and-reject).
  std::uint64_t below(std::uint64_t n) {
    if (n == 0) return 0;
    uint128 m = static_cast<uint128>((*this)()) * n;
    auto low = static_cast<std::uint64_t>(m);
    if (low < n) {
      const std::uint64_t threshold = (0 - n) % n;
      while (low < threshold) {
        m = static_cast<uint128>((*this)()) * n;
        low = static_cast<std::uint64_t>(m);
      }
    }
    return static_cast<std::uint64_t>(m >> 64);
  }

  // Uniform double in [0, 1) with 53 random bits.
  double uniform() { return static_cast<double>((*this)() >> 11) * 0x1.0p-53; }
  double uniform(double lo, double hi) { return lo + (hi - lo) * uniform(); }

  // Standard normal by the polar Box-Muller method; the spare value is kept for the next call.
  double normal() {
    if (has_spare_) {
      has_spare_ = false;
      return spare_;
    }
    double u, v, s;
    do {
      u = 2.0 * uniform() - 1.0;
      v = 2.0 * uniform() - 1.0;
      s = u * u + v * v;
    } while (s >= 1.0 || s == 0.0);
    const double f = std::sqrt(-2.0 * std::log(s) / s);
    spare_ = v * f;
    has_spare_ = true;
    return u * f;
  }
  double normal(double mean, double sd) { return mean + sd * normal(); }

  bool bernoulli(double p) { return uniform() < p; }

  // Fisher-Yates, identical on every platform.
  template <class It>
  void shuffle(It first, It last) {
    const auto n = static_cast<std::uint64_t>(last - first);
    for (std::uint64_t i = n; i > 1; --i) {
      const std::uint64_t j = below(i);
      using std::swap;
      swap(first[i - 1], first[j]);
    }
  }

 private:
  static constexpr std::uint64_t rotl(std::uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
  std::uint64_t s_[4]{};
  double spare_ = 0.0;
  bool has_spare_ = false;
};

}  // namespace loci::sim
