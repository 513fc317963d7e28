// Batches for training, streamed from one split. The order is a shuffle that depends only on (seed, epoch) and the
// dataset's chunking: HDF5 chunks are taken in a shuffled order, a window of a few chunks is read whole, and its
// samples are shuffled within the window. Each read inflates whole chunks, memory stays at a few chunks plus the
// queued batches, and a background thread reads ahead while the trainer works.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/option.hpp"
#include "datasets/reader.hpp"

#include <boost/core/noncopyable.hpp>

namespace loci::datasets {

struct BatchStreamOptions {
  BatchStreamOptions(std::string split, std::vector<std::string> arrays, std::int64_t batch_size)
      : split_(std::move(split)), arrays_(std::move(arrays)), batch_size_(batch_size) {}
  LOCI_OPTION(std::string, split);
  LOCI_OPTION(std::vector<std::string>, arrays);  // per-sample arrays to load, in the order Batch::arrays holds them
  LOCI_OPTION(std::int64_t, batch_size);
  LOCI_OPTION(std::uint64_t, seed) = 0;
  LOCI_OPTION(std::int64_t, epoch) = 0;
  LOCI_OPTION(bool, shuffle) = true;             // false: samples in stored order (evaluation)
  LOCI_OPTION(bool, drop_last) = false;          // drop a final batch smaller than batch_size
  LOCI_OPTION(std::int64_t, limit) = 0;          // only the split's first `limit` samples in stored order (0: all)
  LOCI_OPTION(std::int64_t, window_chunks) = 4;  // chunks whose samples are mixed together
  LOCI_OPTION(std::int64_t, prefetch_batches) = 4;
  // Data-parallel training: of every batch of the order above (the global batch), keep only part `rank` of `ranks`
  // equal parts. Every rank gets the same number of batches, an empty one when a final batch has fewer samples than
  // ranks, so that all ranks take the same number of steps.
  LOCI_OPTION(int, rank) = 0;
  LOCI_OPTION(int, ranks) = 1;
};

struct Batch {
  std::int64_t size = 0;
  std::vector<std::vector<std::uint8_t>> arrays;  // per requested array: size x one sample's bytes, contiguous
  std::vector<std::int64_t> sample_ids;           // index within the split of each sample
  std::int64_t global_size = 0;                   // samples of the global batch this one is part of (ranks > 1)
  std::int64_t offset = 0;                        // position of this part's first sample in the global batch

  template <class T>
  const T* data(std::size_t array) const {
    return reinterpret_cast<const T*>(arrays.at(array).data());
  }
};

class BatchStream : boost::noncopyable {
 public:
  // Keeps a reference to `dataset`, which must outlive the stream. DataError for an unknown split or array.
  BatchStream(const Dataset& dataset, BatchStreamOptions options);
  ~BatchStream();

  // The next batch into `out`; false when the epoch is done. Rethrows a read error (DataError) from the prefetcher.
  bool next(Batch& out);

  std::int64_t batches() const;  // in this epoch (the same for every rank)
  const std::vector<ArrayInfo>& arrays() const;
  // Where the batches come from, for messages about a sample: the dataset's folder (or file) and the split.
  const std::filesystem::path& dataset_path() const;
  const std::string& split() const;

  // The epoch's sample order, without reading anything: what next() will yield, batch after batch (this rank's part).
  std::vector<std::int64_t> order() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace loci::datasets
