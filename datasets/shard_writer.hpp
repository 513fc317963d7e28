// Writes one shard. HDF5 builds the file in memory (its core driver), then our own code checksums the bytes and
// writes them atomically. HDF5 itself never meets a full disk: when its own file writes fail, a file it cannot
// close stays in its tables and crashes the process at exit; here the failing write is a plain write() and becomes
// a one-line DataError.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "datasets/chunk_codec.hpp"
#include "datasets/compression.hpp"
#include "datasets/spec.hpp"

namespace loci::datasets {

// The root attributes every shard carries besides the layout's own.
struct ShardHeader {
  std::string generator, generator_version, loci_version, config_yaml, created, split;
  std::int64_t plugin_abi = 1;
  std::uint64_t seed = 0;
  std::int64_t shard_index = 0, shard_count = 1, first_sample = 0;
};

struct ShardContent {
  const DatasetLayout* layout = nullptr;
  ShardHeader header;
  std::int64_t samples = 0;
  std::vector<const void*> sample_data;  // one block of samples x spec.bytes() per layout.sample_arrays entry
  const std::int64_t* sample_ids = nullptr;
  std::int64_t chunk_samples = 1;
  Compression compression;
  // With gzip on: the chunks of each sample array (and of /sample_id), already encoded (see chunk_codec.hpp).
  // Empty: HDF5 runs its filters itself.
  std::vector<const EncodedArray*> encoded;
  const EncodedArray* encoded_ids = nullptr;
};

struct WrittenShard {
  std::int64_t bytes = 0;
  std::string sha256;
};

// Use from the one thread that writes (HDF5's global lock serialises it anyway). Byte-for-byte deterministic:
// object modification times are not recorded, and objects are created in a fixed order.
class ShardWriter {
 public:
  // Throws DataError naming `target` with the system's reason, e.g.
  // "data/lst/train-00000-of-00008.h5: write failed (No space left on device)"; no temporary is left behind.
  WrittenShard write(const ShardContent& content, const std::filesystem::path& target);

 private:
  std::vector<std::uint8_t> image_;  // reused from shard to shard: fresh memory costs page faults
};

}  // namespace loci::datasets
