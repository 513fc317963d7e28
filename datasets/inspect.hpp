// The text `loci inspect DIR|SHARD [--verify] [--show N]` prints: arrays with dims and dtypes, samples per split,
// attributes, the generator's resolved config, and with --show the first samples' values.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "datasets/spec.hpp"

namespace loci::datasets {

// One sample as read back, for printing.
struct SampleValues {
  std::string split;
  std::int64_t index = 0;
  std::vector<ArraySpec> arrays;                // the per-sample arrays (shapes without the sample axis)
  std::vector<std::vector<std::uint8_t>> data;  // one sample's bytes of each

  // A view a generator's own renderer can take (`Generator::render_sample(const SampleSlots&)`).
  // Valid while this object lives; the renderer must not write through it.
  SampleSlots slots() const;
};

struct InspectOptions {
  bool verify = false;    // check every shard's checksum (reads every byte)
  std::int64_t show = 0;  // print the first N samples of each split
  // Renders one sample; empty or returning "" falls back to compact raw values.
  std::function<std::string(const SampleValues&)> format_sample;
};

// Throws DataError when the dataset cannot be opened or, with verify, when a checksum does not match.
std::string describe(const std::filesystem::path& path, const InspectOptions& options = {});

// "[[1, 2], [3, 4]]", cut short after `max_values` values.
std::string format_values(const ArraySpec& array, const std::uint8_t* data, std::size_t max_values = 32);

}  // namespace loci::datasets
