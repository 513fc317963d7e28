// One shard file opened for reading. Not thread-safe: a Dataset serialises access to it.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "datasets/array_info.hpp"
#include "datasets/spec.hpp"

namespace loci::datasets {

class ShardFile {
 public:
  // Opens the file and checks that it is a loci shard of a schema version this build reads; DataError otherwise.
  explicit ShardFile(std::filesystem::path path);
  ~ShardFile();
  ShardFile(ShardFile&&) noexcept;
  ShardFile& operator=(ShardFile&&) noexcept;

  const std::filesystem::path& path() const;
  std::int64_t samples() const;
  Attributes attributes() const;
  std::vector<ArrayInfo> arrays() const;         // every array but the dimension scales, /sample_id and text, by name
  std::vector<std::string> text_arrays() const;  // names of the dataset-level text arrays (e.g. token_label)
  std::vector<std::string> read_text(const std::string& name) const;  // DataError if absent or not text
  ArrayInfo array(const std::string& name) const;                     // DataError if absent
  std::int64_t chunk_samples(const std::string& name) const;          // samples per HDF5 chunk of a per-sample array

  // Samples [first, first + count) of a per-sample array (or of /sample_id) into `out`, which holds
  // count x the sample's bytes. The stored dtype must equal `dtype`.
  void read(const std::string& name, std::int64_t first, std::int64_t count, void* out, DType dtype) const;
  // A dataset-level array, whole.
  std::vector<std::uint8_t> read_all(const std::string& name) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace loci::datasets
