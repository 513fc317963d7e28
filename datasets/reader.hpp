// Reading a dataset: a folder (through its index.json) or a single shard file. Reads of a sample range span
// shards; every public call is thread-safe (HDF5 serialises them anyway).
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "datasets/array_info.hpp"
#include "datasets/index.hpp"
#include "datasets/spec.hpp"

namespace loci::datasets {

struct VerifyReport {
  std::int64_t shards = 0;
  std::int64_t bytes = 0;
  bool checksums = false;  // false for a lone shard, which has no index: it was read through instead
};

class Dataset {
 public:
  // A folder holding index.json, or one .h5 shard. Throws DataError naming the file: no index, bad JSON, unknown
  // schema version, a shard that is missing or of the wrong size.
  static Dataset open(const std::filesystem::path& path);

  Dataset(Dataset&&) noexcept;
  Dataset& operator=(Dataset&&) noexcept;
  ~Dataset();

  const std::filesystem::path& path() const;
  bool is_folder() const;
  // For a lone shard, an index made from the shard itself: one split, one shard, samples counted from 0.
  const Index& index() const;

  std::vector<std::string> splits() const;
  std::int64_t samples(const std::string& split) const;  // DataError for an unknown split
  const std::vector<ArrayInfo>& arrays() const;          // per-sample arrays
  const std::vector<ArrayInfo>& dataset_arrays() const;
  const ArrayInfo& array(const std::string& name) const;  // either kind; DataError if absent
  Attributes attributes() const;                          // root attributes of the first shard
  std::int64_t chunk_samples() const;                     // samples per HDF5 chunk of the sample arrays

  // DataError unless `name` is stored with this dtype and per-sample (or, for a dataset array, full) shape:
  // what a trainer calls before it trusts a dataset.
  void expect(const std::string& name, DType dtype, const std::vector<std::int64_t>& shape) const;

  // Samples [first, first + count) of `split` into `out` (count x one sample's bytes). `array` may be
  // "sample_id". The stored dtype must be `dtype`.
  void read(const std::string& split, const std::string& array, std::int64_t first, std::int64_t count, void* out,
            DType dtype) const;
  template <class T>
  std::vector<T> read(const std::string& split, const std::string& array, std::int64_t first,
                      std::int64_t count) const {
    const std::int64_t per = array == "sample_id" ? 1 : this->array(array).elements();
    std::vector<T> out(static_cast<std::size_t>(count * per));
    read(split, array, first, count, out.data(), dtype_of<T>());
    return out;
  }

  Array read_dataset_array(const std::string& name) const;
  // A dataset-level text array (e.g. "token_label"), or {} when the dataset has none of that name.
  std::vector<std::string> read_text(const std::string& name) const;

  // Checks every shard's size and SHA-256 against index.json; the first mismatch throws, e.g.
  // "data/lst/train-00003-of-00008.h5: checksum mismatch (index.json says 3f2a…, file has 9b01…)".
  VerifyReport verify() const;

 private:
  Dataset();
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace loci::datasets
