// The fixed points of the shard format: its schema version, reserved names, how shards are named and planned, and
// the checks a generator's layout must pass before any sample is made.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "datasets/spec.hpp"

namespace loci::datasets {

// Bumped whenever a reader of the old version would misread a new shard. Readers refuse any other version.
inline constexpr std::int64_t kSchemaVersion = 1;

inline constexpr const char* kSampleDim = "sample";
inline constexpr const char* kSampleIdArray = "sample_id";

// Root attributes the writer sets itself; a layout may not reuse these names.
const std::vector<std::string>& reserved_attributes();

// "train-00003-of-00008.h5"
std::string shard_file_name(const std::string& split, std::int64_t index, std::int64_t count);

// One shard of the plan: samples [first, first + samples) of `split`.
struct ShardPlan {
  std::string split;
  std::int64_t index = 0;  // within the split
  std::int64_t count = 0;  // shards in the split
  std::int64_t first = 0;
  std::int64_t samples = 0;
  std::string file;
};

// Every split cut into shards of `samples_per_shard` (the last one smaller), splits in the given order. A split of
// zero samples has no shards.
std::vector<ShardPlan> plan_shards(const std::vector<std::pair<std::string, std::int64_t>>& splits,
                                   std::int64_t samples_per_shard);

// Throws std::invalid_argument for a layout no shard can hold: bad or clashing names, a dimension named twice with
// two sizes (netCDF allows one size per name), a shape that does not match its dims, no /positions.
void validate_layout(const DatasetLayout& layout);

// The named dimensions other than "sample", in order of first use, with their sizes.
std::vector<std::pair<std::string, std::int64_t>> dimension_sizes(const DatasetLayout& layout);

// Samples per HDF5 chunk: as many as keep the largest per-sample array's chunk near 256 KiB, so one chunk fits
// HDF5's default 1 MiB chunk cache and a streaming reader holds a few chunks in little memory.
std::int64_t auto_chunk_samples(const DatasetLayout& layout, std::int64_t samples_per_shard);

bool valid_name(const std::string& name);  // [A-Za-z0-9_.-]+, not starting with '.'

std::string iso8601_utc(std::int64_t unix_seconds);

}  // namespace loci::datasets
