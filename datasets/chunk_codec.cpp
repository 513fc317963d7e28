#include "datasets/chunk_codec.hpp"

#include <zlib.h>

#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <string>

namespace loci::datasets {

namespace {

// Per-thread work space, kept for the life of the (pooled) OpenMP thread: allocating a chunk-sized buffer per chunk
// costs a page fault per 4 KiB, which on virtual machines is slower than deflate itself.
struct Scratch {
  std::vector<std::uint8_t> padded, shuffled, deflated;
};
thread_local Scratch scratch;

}  // namespace

void encode_chunk(const std::uint8_t* raw, std::size_t bytes, std::size_t element_size, const Compression& c,
                  std::vector<std::uint8_t>& out) {
  const std::uint8_t* input = raw;
  if (c.shuffle && element_size > 1) {
    // Byte j of every element first, then byte j+1: HDF5's shuffle filter. A tail shorter than one element stays
    // in place, as there.
    const std::size_t n = bytes / element_size;
    auto& s = scratch.shuffled;
    if (s.size() < bytes) s.resize(bytes);
    for (std::size_t j = 0; j < element_size; ++j) {
      std::uint8_t* dst = s.data() + j * n;
      const std::uint8_t* src = raw + j;
      for (std::size_t i = 0; i < n; ++i) dst[i] = src[i * element_size];
    }
    std::memcpy(s.data() + n * element_size, raw + n * element_size, bytes - n * element_size);
    input = s.data();
  }
  auto& d = scratch.deflated;
  uLongf size = compressBound(static_cast<uLong>(bytes));
  if (d.size() < size) d.resize(size);
  const int status = compress2(d.data(), &size, input, static_cast<uLong>(bytes), std::clamp(c.level, 0, 9));
  if (status != Z_OK) throw std::runtime_error("zlib compress2 failed (" + std::to_string(status) + ")");
  out.assign(d.data(), d.data() + size);
}

void encode_arrays(const std::vector<ArrayToEncode>& arrays, std::int64_t samples, std::int64_t chunk_samples,
                   const Compression& c, int threads) {
  chunk_samples = std::max<std::int64_t>(1, std::min(chunk_samples, samples));
  const std::int64_t chunks = (samples + chunk_samples - 1) / chunk_samples;
  for (const auto& a : arrays) a.out->chunks.resize(static_cast<std::size_t>(chunks));
  const std::int64_t tasks = chunks * static_cast<std::int64_t>(arrays.size());
  bool failed = false;
#pragma omp parallel for num_threads(threads) schedule(dynamic, 1)
  for (std::int64_t t = 0; t < tasks; ++t) {
    const ArrayToEncode& a = arrays[static_cast<std::size_t>(t / chunks)];
    const std::int64_t k = t % chunks;
    const std::size_t chunk_bytes = static_cast<std::size_t>(chunk_samples) * a.sample_bytes;
    const std::size_t total = static_cast<std::size_t>(samples) * a.sample_bytes;
    const std::size_t begin = static_cast<std::size_t>(k) * chunk_bytes;
    const std::uint8_t* src = a.raw + begin;
    if (begin + chunk_bytes > total) {  // the edge chunk, stored whole: pad with the fill value, zero
      scratch.padded.assign(chunk_bytes, 0);
      std::memcpy(scratch.padded.data(), src, total - begin);
      src = scratch.padded.data();
    }
    try {
      encode_chunk(src, chunk_bytes, a.element_size, c, a.out->chunks[static_cast<std::size_t>(k)]);
    } catch (...) {
#pragma omp atomic write
      failed = true;
    }
  }
  if (failed) throw std::runtime_error("zlib could not compress a chunk");
}

}  // namespace loci::datasets
