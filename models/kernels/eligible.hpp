// Which tensors the kernels of this folder take. Anything else goes to ATen's own operators, so every kernel falls
// back on the same inputs: another dtype or device, autocast (whose operators expect bfloat16 in and out), or extents
// beyond what the int arguments of BLAS, libxsmm and the kernels' loops hold.
#pragma once

#include <ATen/autocast_mode.h>
#include <torch/torch.h>

#include <algorithm>
#include <climits>
#include <cstdint>
#include <initializer_list>

namespace loci::models {

// A defined float32 tensor in CPU memory.
inline bool cpu_float32(const torch::Tensor& t) {
  return t.defined() && t.scalar_type() == torch::kFloat32 && t.device().is_cpu();
}

template <class... Tensors>
bool all_cpu_float32(const Tensors&... t) {
  return (cpu_float32(t) && ...);
}

// No autocast on this thread (it is per thread, as LibTorch keeps it).
inline bool outside_autocast() { return !at::autocast::is_cpu_enabled(); }

// Every extent (a size, a row count, a stride) below INT_MAX.
inline bool int_sized(std::initializer_list<std::int64_t> extents) {
  return std::all_of(extents.begin(), extents.end(), [](std::int64_t e) { return e < INT_MAX; });
}

}  // namespace loci::models
