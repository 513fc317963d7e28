// The harnesses' one piece of plumbing: the readers take file names, so each input is written to a file of this
// process's own in /dev/shm (or /tmp) first.
#pragma once

#include <unistd.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "datasets/reader.hpp"
#include "datasets/shard_reader.hpp"

namespace loci::fuzz {

inline std::string input_file(const std::uint8_t* data, std::size_t size, const std::string& suffix) {
  static const std::string dir = std::filesystem::is_directory("/dev/shm") ? "/dev/shm" : "/tmp";
  const std::string path = dir + "/loci-fuzz-" + std::to_string(getpid()) + suffix;
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) __builtin_trap();
  if (size > 0 && std::fwrite(data, 1, size, f) != size) __builtin_trap();
  std::fclose(f);
  return path;
}

// A copy, of this process's own, of the dataset LOCI_FUZZ_DATASET names (bench/fuzz/make_seeds.sh makes one): its
// shards, and its index.json too unless the harness writes its own.
inline std::filesystem::path dataset_copy(const std::string& harness, bool with_index) {
  namespace fs = std::filesystem;
  const char* from = std::getenv("LOCI_FUZZ_DATASET");
  if (!from) {
    std::fprintf(stderr, "%s: set LOCI_FUZZ_DATASET to a dataset folder\n", harness.c_str());
    std::abort();
  }
  const fs::path d = fs::temp_directory_path() / ("loci-" + harness + "-" + std::to_string(getpid()));
  fs::remove_all(d);
  fs::create_directories(d);
  for (const auto& e : fs::directory_iterator(from))
    if (e.path().extension() == ".h5" || (with_index && e.path().filename() == "index.json"))
      fs::copy_file(e.path(), d / e.path().filename());
  return d;
}

// A lone shard read as `loci inspect FILE.h5` reads it: attributes, every array (its chunking and first samples),
// every text array.
inline void read_shard_file(const std::string& path) {
  const loci::datasets::ShardFile f(path);
  (void)f.attributes();
  for (const auto& a : f.arrays()) {
    (void)f.chunk_samples(a.name);
    if (a.per_sample) {
      const auto n = std::min<std::int64_t>(f.samples(), 4);
      std::vector<std::uint8_t> out(a.bytes() * static_cast<std::size_t>(n));
      f.read(a.name, 0, n, out.data(), a.dtype);
    } else {
      (void)f.read_all(a.name);
    }
  }
  for (const auto& t : f.text_arrays()) (void)f.read_text(t);
}

// Every split's first samples of every array, the dataset arrays and text: what a trainer or analysis would read.
inline void read_everything(const loci::datasets::Dataset& ds) {
  for (const auto& split : ds.splits()) {
    const auto n = std::min<std::int64_t>(ds.samples(split), 4);
    for (const auto& a : ds.arrays()) {
      std::vector<std::uint8_t> out(a.bytes() * static_cast<std::size_t>(n));
      ds.read(split, a.name, 0, n, out.data(), a.dtype);
    }
  }
  for (const auto& a : ds.dataset_arrays()) (void)ds.read_dataset_array(a.name);
  for (const auto& t : ds.index().text_arrays) (void)ds.read_text(t.name);
}

}  // namespace loci::fuzz
