#pragma once
// Keeps freed tensor memory in the process instead of returning it to the kernel.
//
// A training step of the paper's model allocates and frees hundreds of 1-5 MB tensors. With glibc's defaults such
// blocks are often mapped afresh (mmap) or trimmed back after being freed, so every step pays page faults on first
// touch; on the project's 2-core VM that more than doubled the step time of both LibTorch and PyTorch (measured
// with bench/models/run.sh). A process that trains should call this once at startup; it only tunes glibc's malloc
// and is a no-op elsewhere. It is not called by the library itself, as it changes process-wide behaviour.

#include <cstddef>

namespace loci::models {

struct AllocatorTuning {
  // Blocks below this come from the heap (glibc caps it at 32 MiB on 64-bit).
  std::size_t mmap_threshold = std::size_t{32} << 20;
  // Free memory at the top of the heap is kept up to this much.
  std::size_t trim_threshold = std::size_t{1} << 30;
  // Extra memory requested with each heap growth.
  std::size_t top_pad = std::size_t{64} << 20;
};

// Returns false when the C library does not support the tuning (all settings are then left as they were).
bool tune_allocator(const AllocatorTuning& tuning = {});

}  // namespace loci::models
