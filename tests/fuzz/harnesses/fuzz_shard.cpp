// Shards as the reader meets them. By default, as a shard of a dataset folder: the input replaces one shard of a
// copy of a real tiny dataset (LOCI_FUZZ_DATASET), the index unchanged, and the dataset is opened, read and
// verified: whatever the bytes, a DataError or the data, never a crash. (HDF5 1.10 can crash on a damaged file, so
// the reader checks a shard's SHA-256 against index.json before HDF5 opens it.)
// With LOCI_FUZZ_LONE_SHARD=1, the input is opened as a lone shard instead (`loci inspect FILE.h5`: no index, no
// checksum): the HDF5 library itself is then under test, and its crashes are its own (bench/fuzz/run.sh).
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <filesystem>

#include "datasets/reader.hpp"
#include "datasets/shard_reader.hpp"
#include "fuzz_file.hpp"

namespace fs = std::filesystem;

namespace {

// A copy of the seed dataset, of this process's own; the input replaces its first shard.
const fs::path& folder() {
  static const fs::path dir = loci::fuzz::dataset_copy("fuzz-shard", true);
  return dir;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const bool lone =
      std::getenv("LOCI_FUZZ_LONE_SHARD") && std::string(std::getenv("LOCI_FUZZ_LONE_SHARD")) == "1";
  try {
    if (lone) {
      loci::fuzz::read_shard_file(loci::fuzz::input_file(data, size, ".h5"));
      return 0;
    }
    const fs::path& dir = folder();
    const auto index = loci::datasets::Index::load(dir / "index.json");
    const fs::path target = dir / index.shards.front().file;
    std::FILE* f = std::fopen(target.c_str(), "wb");
    if (!f) __builtin_trap();
    if (size > 0 && std::fwrite(data, 1, size, f) != size) __builtin_trap();
    std::fclose(f);
    const auto ds = loci::datasets::Dataset::open(dir);
    loci::fuzz::read_everything(ds);
    (void)ds.verify();
  } catch (const std::exception&) {
  }
  return 0;
}
