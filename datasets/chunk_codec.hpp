// Chunks encoded the way HDF5's shuffle and deflate filters encode them, but outside HDF5: so the chunks of a
// shard are compressed in parallel (HDF5 runs its filters one chunk at a time, under its global lock) and the writer
// thread only hands finished bytes to H5Dwrite_chunk. Any HDF5 reader decodes them with its ordinary filters.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "datasets/compression.hpp"

namespace loci::datasets {

// One per-sample array of one shard, cut into chunks of `chunk_samples` samples (the last one zero-padded to a
// whole chunk, as HDF5 stores edge chunks whole).
struct EncodedArray {
  std::vector<std::vector<std::uint8_t>> chunks;
};

// Shuffle (when on and the element is wider than a byte), then deflate at `c.level`, as a zlib stream, into `out`.
void encode_chunk(const std::uint8_t* raw, std::size_t bytes, std::size_t element_size, const Compression& c,
                  std::vector<std::uint8_t>& out);

// One per-sample array of a shard to encode: `samples` x `sample_bytes` raw bytes, into `out`.
struct ArrayToEncode {
  const std::uint8_t* raw = nullptr;
  std::size_t sample_bytes = 0;
  std::size_t element_size = 1;
  EncodedArray* out = nullptr;  // keeps its memory from call to call: pass the same one shard after shard
};

// Encodes every chunk of every array in one OpenMP loop of `threads` threads (one loop, not one per array: each
// loop ends in a barrier, which costs much on a busy machine).
void encode_arrays(const std::vector<ArrayToEncode>& arrays, std::int64_t samples, std::int64_t chunk_samples,
                   const Compression& c, int threads);

}  // namespace loci::datasets
