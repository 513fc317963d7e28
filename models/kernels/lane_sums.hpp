#pragma once
// Sums and maxima along a row in 16 interleaved partial results combined in a fixed order.
//
// Why: a plain `s += x[j]` loop must add in index order, so the compiler keeps it scalar and it waits on each add's
// latency; LayerNorm's and softmax's row reductions took about a tenth of the Exp 2/3 model's training step on one
// core that way. Sixteen independent lanes vectorise at any width (one zmm, two ymm, four xmm), and the lanes and
// the final combine are the same whatever the width: the order of the additions does not depend on the CPU (the
// terms may, where a wide clone fuses a multiply into its add), nor on the thread count.

#include <cstdint>

namespace loci::models::lanes {

constexpr int kLanes = 16;

// The sum over j < n of value(j).
template <class F>
__attribute__((always_inline)) inline float sum(std::int64_t n, F&& value) {
  float acc[kLanes] = {};
  std::int64_t j = 0;
  for (; j + kLanes <= n; j += kLanes)
    for (int l = 0; l < kLanes; ++l) acc[l] += value(j + l);
  for (int l = 0; j + l < n; ++l) acc[l] += value(j + l);
  for (int width = kLanes / 2; width > 0; width /= 2)
    for (int l = 0; l < width; ++l) acc[l] += acc[l + width];
  return acc[0];
}

// The two sums over j < n of the pair value(j) returns, in one pass.
template <class F>
__attribute__((always_inline)) inline void sum2(std::int64_t n, F&& value, float& first, float& second) {
  float a[kLanes] = {}, b[kLanes] = {};
  std::int64_t j = 0;
  for (; j + kLanes <= n; j += kLanes)
    for (int l = 0; l < kLanes; ++l) {
      const auto v = value(j + l);
      a[l] += v.first;
      b[l] += v.second;
    }
  for (int l = 0; j + l < n; ++l) {
    const auto v = value(j + l);
    a[l] += v.first;
    b[l] += v.second;
  }
  for (int width = kLanes / 2; width > 0; width /= 2)
    for (int l = 0; l < width; ++l) {
      a[l] += a[l + width];
      b[l] += b[l + width];
    }
  first = a[0];
  second = b[0];
}

// The largest x[j], j < n (n >= 1); a NaN anywhere may or may not win, as in a plain loop of `>` comparisons.
__attribute__((always_inline)) inline float max(const float* x, std::int64_t n) {
  float acc[kLanes];
  for (int l = 0; l < kLanes; ++l) acc[l] = x[0];
  std::int64_t j = 0;
  for (; j + kLanes <= n; j += kLanes)
    for (int l = 0; l < kLanes; ++l) acc[l] = x[j + l] > acc[l] ? x[j + l] : acc[l];
  for (int l = 0; j + l < n; ++l) acc[l] = x[j + l] > acc[l] ? x[j + l] : acc[l];
  for (int width = kLanes / 2; width > 0; width /= 2)
    for (int l = 0; l < width; ++l) acc[l] = acc[l + width] > acc[l] ? acc[l + width] : acc[l];
  return acc[0];
}

}  // namespace loci::models::lanes
