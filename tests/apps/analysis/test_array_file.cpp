// pe.h5 and other run outputs read back for analysis: shapes, values, dims and attributes survive, and a damaged
// file is one clear error naming it.
#include <catch2/catch.hpp>

#include <fstream>

#include "datasets/array_file.hpp"
#include "datasets/error.hpp"
#include "tests/support/temp_files.hpp"

using namespace loci;

TEST_CASE("An array file reads back what was written") {
  test::TempDir dir;
  const auto file = dir.path() / "a.h5";
  const std::vector<float> m{1, 2, 3, 4, 5, 6};
  const std::vector<std::int64_t> e{10, 20};
  datasets::write_array_file(file,
                             {datasets::Array::of(datasets::ArraySpec{"m", {}, {"token", "dim"}, {2, 3}, "doc"}, m),
                              datasets::Array::of(datasets::ArraySpec{"epoch", {}, {"evaluation"}, {2}, ""}, e)},
                             {{"pe_type", std::string("learned")}, {"init_std", 0.5}});
  const auto r = datasets::read_array_file(file);
  REQUIRE(r.arrays.count("m") == 1);
  CHECK(r.arrays.at("m").shape == std::vector<std::int64_t>{2, 3});
  CHECK(r.arrays.at("m").values == std::vector<double>{1, 2, 3, 4, 5, 6});
  CHECK(r.arrays.at("m").dims == "token,dim");
  CHECK(r.arrays.at("epoch").values == std::vector<double>{10, 20});
  CHECK(std::get<std::string>(r.attributes.at("pe_type")) == "learned");
  CHECK(std::get<double>(r.attributes.at("init_std")) == 0.5);
}

TEST_CASE("A missing or truncated array file is a DataError naming it") {
  test::TempDir dir;
  const auto file = dir.path() / "pe.h5";
  CHECK_THROWS_WITH(datasets::read_array_file(file), Catch::Contains(file.string()) && Catch::Contains("no such file"));
  const std::vector<double> v(1000, 1.0);
  datasets::write_array_file(file, {datasets::Array::of(datasets::ArraySpec{"v", {}, {"x"}, {1000}, ""}, v)}, {});
  std::filesystem::resize_file(file, std::filesystem::file_size(file) / 2);
  CHECK_THROWS_AS(datasets::read_array_file(file), datasets::DataError);
  CHECK_THROWS_WITH(datasets::read_array_file(file), Catch::Contains(file.string()));
}

TEST_CASE("A damaged array file with its checksum record is refused before HDF5 opens it - without one it is read") {
  test::TempDir dir;
  const auto file = dir.path() / "pe.h5";
  const std::vector<double> v(1000, 1.0);
  datasets::write_array_file(file, {datasets::Array::of(datasets::ArraySpec{"v", {}, {"x"}, {1000}, ""}, v)}, {});
  REQUIRE(std::filesystem::exists(dir.path() / "pe.h5.sha256"));
  {
    // One byte of the data changed: HDF5 itself would read it without complaint (no checksum of its own).
    std::fstream f(file, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(-8, std::ios::end);
    f.put('\x7f');
  }
  CHECK_THROWS_WITH(datasets::read_array_file(file),
                    Catch::Contains(file.string()) && Catch::Contains("does not match its checksum"));
  // A file an older loci wrote has no record: read unchecked, as before.
  std::filesystem::remove(dir.path() / "pe.h5.sha256");
  CHECK_NOTHROW(datasets::read_array_file(file));
}
