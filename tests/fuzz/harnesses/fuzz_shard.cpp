// The shard reader on a file that claims to be a shard: open, list, read every array and text array, attributes,
// and the same file opened as a lone-shard dataset. A malformed file must be a DataError, never a crash or an
// unbounded allocation. Seeds: shards of tiny datasets of each generator (bench/fuzz/make_seeds.sh).
#include <cstddef>
#include <cstdint>

#include "datasets/reader.hpp"
#include "datasets/shard_reader.hpp"
#include "fuzz_file.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string path = loci::fuzz::input_file(data, size, ".h5");
  try {
    const loci::data::ShardFile f(path);
    (void)f.attributes();
    for (const auto& a : f.arrays()) {
      if (a.per_sample) {
        std::vector<std::uint8_t> out(a.bytes() * static_cast<std::size_t>(std::min<std::int64_t>(f.samples(), 4)));
        f.read(a.name, 0, std::min<std::int64_t>(f.samples(), 4), out.data(), a.dtype);
      } else {
        (void)f.read_all(a.name);
      }
    }
    for (const auto& t : f.text_arrays()) (void)f.read_text(t);
  } catch (const std::exception&) {
  }
  try {
    const auto ds = loci::data::Dataset::open(path);
    (void)ds.verify();
  } catch (const std::exception&) {
  }
  return 0;
}
