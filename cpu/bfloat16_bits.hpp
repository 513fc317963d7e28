#pragma once
// bfloat16 <-> float conversions written as bit operations, so that loops calling them vectorise (c10::BFloat16's
// operators go through a function per element). Rounding is to nearest even and NaN stays NaN, as c10::BFloat16.

#include "cpu/bit_cast.hpp"

#include <cstdint>

namespace loci::cpu {

inline float bf16_to_float(std::uint16_t b) { return bit_cast<float>(static_cast<std::uint32_t>(b) << 16); }

inline std::uint16_t float_to_bf16(float v) {
  const auto bits = bit_cast<std::uint32_t>(v);
  const std::uint32_t rounded = (bits + 0x7FFFu + ((bits >> 16) & 1u)) >> 16;
  return v != v ? std::uint16_t{0x7FC0} : static_cast<std::uint16_t>(rounded);
}

}  // namespace loci::cpu
