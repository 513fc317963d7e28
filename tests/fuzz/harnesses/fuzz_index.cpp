// A dataset folder's index.json as the reader meets it: parsed, checked against the shards beside it (sizes,
// dtypes, shapes, splits), then samples read through the index. The shards are a real tiny dataset copied into a
// folder of this process's own; only index.json is fuzzed. Seeds: the index.json of those datasets.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "datasets/reader.hpp"
#include "fuzz_file.hpp"

namespace fs = std::filesystem;

namespace {

const fs::path& folder() {
  static const fs::path dir = loci::fuzz::dataset_copy("fuzz-index", false);
  return dir;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const fs::path& dir = folder();
  std::ofstream(dir / "index.json", std::ios::binary | std::ios::trunc)
      .write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  try {
    loci::fuzz::read_everything(loci::datasets::Dataset::open(dir));
  } catch (const std::exception&) {
  }
  return 0;
}
