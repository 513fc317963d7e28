#pragma once
// A vectorisable exp for arguments <= 0, shared by the fused elementwise kernels (GELU, softmax). Files that use it
// are built with -fno-trapping-math -fno-math-errno (models/CMakeLists.txt) so that the loops around it vectorise.

#include "sim/bit_cast.hpp"

#include <cstdint>

namespace loci::models {

// exp(v) for v <= 0 by range reduction to [-ln2/2, ln2/2] and a degree-6 polynomial (relative error ~1e-7), written
// branch-free so that loops calling it vectorise.
inline float exp_nonpositive(float v) {
  v = v < -87.0f ? -87.0f : v;
  const float n = __builtin_floorf(v * 1.44269504f + 0.5f);
  const float r = (v - n * 0.693359375f) + n * 2.12194440e-4f;
  float p = 1.0f / 720.0f;
  p = p * r + 1.0f / 120.0f;
  p = p * r + 1.0f / 24.0f;
  p = p * r + 1.0f / 6.0f;
  p = p * r + 0.5f;
  p = p * r + 1.0f;
  p = p * r + 1.0f;
  return p * sim::bit_cast<float>((static_cast<std::int32_t>(n) + 127) << 23);
}

}  // namespace loci::models
