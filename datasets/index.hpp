// index.json: what a dataset folder holds and how to check it. Written last, so its presence means every shard
// it lists was complete when it was written.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "datasets/compression.hpp"
#include "datasets/spec.hpp"

namespace loci::datasets {

struct ShardEntry {
  std::string file;  // relative to the dataset folder
  std::string split;
  std::int64_t first_sample = 0;  // index within the split of the shard's first sample
  std::int64_t samples = 0;
  std::int64_t bytes = 0;
  std::string sha256;
};

struct SplitEntry {
  std::string name;
  std::int64_t samples = 0;
};

struct Index {
  std::int64_t schema_version = 0;
  std::string generator, generator_version, loci_version, config_yaml, created;
  std::int64_t plugin_abi = 1;
  std::uint64_t seed = 0;
  std::int64_t samples_per_shard = 0;
  std::int64_t chunk_samples = 0;
  Compression compression;
  std::vector<SplitEntry> splits;
  std::vector<ArraySpec> features;        // per-sample arrays; shapes exclude the sample axis
  std::vector<ArraySpec> dataset_arrays;  // stored whole in every shard
  std::vector<ArraySpec> text_arrays;     // dataset-level text (TextArray::shape(); "dtype": "string" in the file)
  std::vector<InputFile> inputs;          // files outside loci the samples were made from, with their checksums
  std::vector<ShardEntry> shards;

  nlohmann::ordered_json to_json() const;
  // `file` names the source in any DataError (bad JSON, unknown schema version, missing field).
  static Index from_json(const nlohmann::json& j, const std::filesystem::path& file);
  static Index load(const std::filesystem::path& file);

  // The fields that fix every byte of sample data: two runs with equal identities make the same shards.
  nlohmann::ordered_json identity() const;
  std::int64_t samples(const std::string& split) const;  // DataError-free: 0 for an unknown split
};

// The first field where two identities differ, as "seed 1 vs 2" (values shortened), or nullopt if equal.
std::optional<std::string> identity_difference(const nlohmann::ordered_json& had, const nlohmann::ordered_json& want);

nlohmann::ordered_json spec_to_json(const ArraySpec& s);
ArraySpec spec_from_json(const nlohmann::json& j);  // throws std::exception on bad input
std::optional<DType> dtype_from_name(const std::string& name);

}  // namespace loci::datasets
