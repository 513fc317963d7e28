// The generation driver: turns a SampleSource (a generator plugin, as the host wraps it) into a dataset folder of
// shards, index.json and dataset_card.md. Samples are made in parallel with OpenMP; one background thread writes
// each shard while the next is being made.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "datasets/compression.hpp"
#include "datasets/spec.hpp"

namespace loci::datasets {

// Which sample to make. Sample `index` of `split` depends on this key alone.
struct SampleKey {
  std::string split;
  std::int64_t index;
  std::uint64_t seed;
};

// Thread-safe: fill() is called concurrently from OpenMP threads.
class SampleSource {
 public:
  virtual ~SampleSource();
  virtual const DatasetLayout& layout() const = 0;
  // Writes every per-sample array of one sample into `out` (buffers arrive zeroed). Depends only on `key`.
  virtual void fill(const SampleKey& key, const SampleSlots& out) const = 0;
};

struct GenerateOptions {
  std::filesystem::path out;                                 // dataset folder
  std::vector<std::pair<std::string, std::int64_t>> splits;  // ordered: split name -> samples
  std::int64_t samples_per_shard = 1000;
  std::uint64_t seed = 0;
  std::string generator, generator_version, config_yaml, card_prose, regenerate_command, license = "cc-by-4.0";
  int plugin_abi = 1;
  std::string loci_version = "0.1.0";
  Compression compression;
  bool resume = false, force = false;
  int threads = 0;       // 0 = all cores (omp_get_max_threads)
  bool progress = true;  // a bar with rate and ETA when stderr is a terminal, plain lines otherwise
  // One process of a multi-process run: rank r makes shards r, r + world_size, r + 2 world_size, ... of the plan
  // (all splits' shards in order), so every split is spread over all ranks. The ranks share the output folder;
  // whichever finds every shard recorded writes index.json. A dead rank is rerun alone with `resume`.
  int rank = 0, world_size = 1;
  // Make nothing: write index.json from the journal of a run whose shards all exist (for ranks that could not see
  // each other's records on a lagging network file system). DataError naming the missing shards otherwise.
  bool merge = false;

  // Written into every shard and index.json as `created` (ISO-8601 UTC). The checksums cover the whole file, so a
  // wall-clock time would make two runs of the same seed differ; hence: this value when set, else
  // SOURCE_DATE_EPOCH (the reproducible-builds convention) when set, else the time the resumed run started, else now.
  std::string created;
  std::int64_t chunk_samples = 0;  // samples per HDF5 chunk; 0 = about 256 KiB of the widest array
  std::string pretty_name;         // dataset card title; "" = generator name
  // Files outside loci the samples are made from, checksummed by the caller: part of the dataset's identity, so a
  // --resume after one of them changed is refused rather than mixing shards of two inputs.
  std::vector<InputFile> inputs;
};

struct GenerateReport {
  std::int64_t samples_written = 0, shards_written = 0, shards_kept = 0;
  double seconds = 0;
  // index.json is in place: every shard is present. False only for a rank whose siblings have shards to make yet.
  bool complete = false;
};

// Throws DataError (naming the file or folder) for what the user can fix, std::invalid_argument for a layout that
// breaks the shard contract, and whatever fill() throws.
GenerateReport generate_dataset(const SampleSource& source, const GenerateOptions& options);

}  // namespace loci::datasets
