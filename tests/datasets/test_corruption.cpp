// Each kind of damage is caught, with a one-line message that names the damaged file.
#include <catch2/catch.hpp>

#include <hdf5.h>

#include <fstream>

#include <nlohmann/json.hpp>

#include "datasets/checksum.hpp"
#include "datasets/error.hpp"
#include "datasets/reader.hpp"
#include "synthetic_source.hpp"
#include "test_util.hpp"

using namespace loci;
using Catch::Contains;
namespace fs = std::filesystem;

namespace {

// A pristine dataset made once, and a fresh copy of it for each test to damage.
fs::path pristine() {
  static const fs::path dir = [] {
    const auto d = test::fresh_dir("corruption-pristine") / "ds";
    auto o = test::small_options(d);
    o.chunk_samples = 5;
    datasets::generate_dataset(test::SyntheticSource(), o);
    return d;
  }();
  return dir;
}

fs::path damaged_copy(const std::string& name) {
  const fs::path d = test::fresh_dir("corruption-" + name) / "ds";
  fs::copy(pristine(), d, fs::copy_options::recursive);
  return d;
}

bool one_line(const std::string& s) { return s.find('\n') == std::string::npos; }

std::string message_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const datasets::DataError& e) {
    return e.what();
  }
  return "(no DataError)";
}

// Where the first chunk of `array` lies in the file, found with HDF5 itself.
std::pair<haddr_t, hsize_t> first_chunk(const fs::path& file, const char* array) {
  const hid_t f = H5Fopen(file.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  const hid_t d = H5Dopen2(f, array, H5P_DEFAULT);
  haddr_t addr = 0;
  hsize_t size = 0;
  unsigned mask = 0;
  hsize_t offset[4] = {0, 0, 0, 0};
  const hid_t space = H5Dget_space(d);
  H5Dget_chunk_info(d, space, 0, offset, &mask, &addr, &size);
  H5Sclose(space);
  H5Dclose(d);
  H5Fclose(f);
  return {addr, size};
}

void flip_byte(const fs::path& file, std::uint64_t at) {
  std::fstream f(file, std::ios::in | std::ios::out | std::ios::binary);
  f.seekg(static_cast<std::streamoff>(at));
  const char c = static_cast<char>(f.get());
  f.seekp(static_cast<std::streamoff>(at));
  f.put(static_cast<char>(c ^ 0x55));
}

}  // namespace

TEST_CASE("a truncated shard is refused by name", "[datasets][corruption]") {
  const auto ds = damaged_copy("truncated");
  const fs::path shard = ds / "train-00001-of-00004.h5";
  fs::resize_file(shard, fs::file_size(shard) / 2);
  const std::string m = message_of([&] { datasets::Dataset::open(ds); });
  CHECK_THAT(m, Contains(shard.string() + ": truncated (index.json says"));
  CHECK(one_line(m));
  // Opened on its own, without an index to compare sizes with, HDF5 notices.
  REQUIRE_THROWS_WITH(datasets::Dataset::open(shard), Contains(shard.string() + ": not a readable HDF5 file"));
  CHECK(one_line(message_of([&] { datasets::Dataset::open(shard); })));
}

TEST_CASE("a flipped byte fails verify and fails the read that meets it", "[datasets][corruption]") {
  const auto ds = damaged_copy("flipped");
  const fs::path shard = ds / "train-00002-of-00004.h5";
  const auto [addr, size] = first_chunk(shard, "noise");
  REQUIRE(size > 16);
  flip_byte(shard, addr + size / 2);

  const auto opened = datasets::Dataset::open(ds);  // sizes still match: only the checksum can tell
  const std::string m = message_of([&] { opened.verify(); });
  CHECK_THAT(m, Contains(shard.string() + ": checksum mismatch (index.json says "));
  CHECK_THAT(m, Contains(", file has "));
  CHECK(one_line(m));

  // Samples 20..29 are that shard's: the first read of it checks its bytes before HDF5 sees them (HDF5 1.10 can
  // crash on a damaged file, a fuzzer found), so every sample of it is refused, naming the shard.
  for (const std::int64_t first : {20, 27}) {
    const std::string r = message_of([&] { opened.read<float>("train", "noise", first, 2); });
    CHECK_THAT(r, Contains(shard.string() + ": checksum mismatch (index.json says "));
    CHECK(one_line(r));
  }
  // Samples elsewhere still read.
  CHECK(opened.read<float>("train", "noise", 0, 20).size() == 20 * 12);
}

TEST_CASE("a missing shard is refused by name", "[datasets][corruption]") {
  const auto ds = damaged_copy("missing");
  fs::remove(ds / "test-00001-of-00002.h5");
  REQUIRE_THROWS_WITH(datasets::Dataset::open(ds),
                      (ds / "test-00001-of-00002.h5").string() + ": missing (listed in index.json)");
  fs::remove(ds / "index.json");
  REQUIRE_THROWS_WITH(datasets::Dataset::open(ds), Contains((ds / "index.json").string() + ": missing"));
}

TEST_CASE("an unknown schema version is refused in index.json or in a shard", "[datasets][corruption]") {
  const auto ds = damaged_copy("schema");
  auto j = nlohmann::json::parse(test::slurp(ds / "index.json"));
  j["loci_schema_version"] = 99;
  std::ofstream(ds / "index.json") << j.dump(2);
  REQUIRE_THROWS_WITH(datasets::Dataset::open(ds),
                      (ds / "index.json").string() + ": unknown schema version 99 (this loci reads version 1)");

  const fs::path shard = ds / "train-00000-of-00004.h5";
  const hid_t f = H5Fopen(shard.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
  const hid_t a = H5Aopen(f, "loci_schema_version", H5P_DEFAULT);
  const std::int64_t v = 2;
  H5Awrite(a, H5T_NATIVE_INT64, &v);
  H5Aclose(a);
  H5Fclose(f);
  REQUIRE_THROWS_WITH(datasets::Dataset::open(shard),
                      shard.string() + ": unknown schema version 2 (this loci reads version 1)");

  // A float where a count belongs (the index fuzzer's find: converting 5.5e91 to an integer is undefined) is refused.
  j["loci_schema_version"] = 1;
  j["shards"][0]["samples"] = 5.55556e91;
  std::ofstream(ds / "index.json") << j.dump(2);
  REQUIRE_THROWS_WITH(datasets::Dataset::open(ds),
                      Contains((ds / "index.json").string() + ": malformed index: 'samples' is not a whole number"));

  std::ofstream(ds / "index.json") << "{ not json";
  REQUIRE_THROWS_WITH(datasets::Dataset::open(ds), Contains((ds / "index.json").string() + ": not valid JSON"));
}

TEST_CASE("a shard whose dtype or shape differs from the index is refused", "[datasets][corruption]") {
  const auto ds = damaged_copy("dtype");
  // The same dataset made with int64 labels: swap one of its shards in and make the index's size entry agree.
  const fs::path other = test::fresh_dir("corruption-other") / "ds";
  REQUIRE(test::run_helper({other.string(), "--label-i64", "--chunk", "5"}).status == 0);
  const std::string name = "train-00003-of-00004.h5";
  fs::copy_file(other / name, ds / name, fs::copy_options::overwrite_existing);
  auto j = nlohmann::json::parse(test::slurp(ds / "index.json"));
  for (auto& s : j["shards"])
    if (s["file"] == name) s["bytes"] = fs::file_size(ds / name);
  std::ofstream(ds / "index.json") << j.dump(2);
  {
    const auto opened = datasets::Dataset::open(ds);
    CHECK(opened.read<std::int32_t>("train", "label", 0, 30).size() == 30);  // shards 0-2 are fine
    CHECK_THAT(message_of([&] { opened.read<std::int32_t>("train", "label", 30, 1); }),
               Contains(name + ": checksum mismatch"));
    CHECK_THAT(message_of([&] { opened.verify(); }), Contains(name + ": checksum mismatch"));
  }
  // With its checksum in the index too, the reader still finds that the shard is not what the index describes.
  for (auto& s : j["shards"])
    if (s["file"] == name) s["sha256"] = datasets::sha256_file(ds / name);
  std::ofstream(ds / "index.json") << j.dump(2);
  const auto opened = datasets::Dataset::open(ds);
  const std::string m = message_of([&] { opened.read<std::int32_t>("train", "label", 30, 1); });
  CHECK(m == (ds / name).string() + ": array 'label' is int64 [sample] but index.json says int32 [sample]");

  // What a caller expects is checked too.
  CHECK_THROWS_WITH(opened.read<float>("train", "tokens", 0, 1), Contains("array 'tokens' is uint8, not float32"));
  CHECK_THROWS_WITH(
      opened.expect("tokens", datasets::DType::u8, {6, 4}),
      Contains("index.json: array 'tokens' is uint8 [sample, token=6, channel=3], expected uint8 of shape [6, 4]"));
  CHECK_NOTHROW(opened.expect("tokens", datasets::DType::u8, {6, 3}));
  CHECK_THROWS_WITH(opened.read<std::uint8_t>("train", "tokens", 38, 5), Contains("out of range"));
  CHECK_THROWS_WITH(opened.samples("validation"), Contains("no split 'validation'"));
}
