// `loci inspect` text, and the progress helpers.
#include <catch2/catch.hpp>

#include "datasets/generate.hpp"
#include "datasets/inspect.hpp"
#include "datasets/progress.hpp"
#include "synthetic_source.hpp"
#include "test_util.hpp"

using namespace loci;
using Catch::Contains;

TEST_CASE("describe lists arrays and dims and splits and attributes and config", "[datasets][inspect]") {
  auto o = test::small_options(test::fresh_dir("inspect") / "ds");
  datasets::generate_dataset(test::SyntheticSource(), o);

  const std::string text = datasets::describe(o.out, {true, 2, {}});
  CHECK_THAT(text, Contains("generator synthetic 1.0.0, seed 7"));
  CHECK_THAT(text, Contains("train       40 samples in 4 shards"));
  CHECK_THAT(text, Contains("tokens"));
  CHECK_THAT(text, Contains("uint8 [sample, token=6, channel=3]  token symbols"));
  CHECK_THAT(text, Contains("float32 [token=6, coord=2]  true grid coordinates"));
  CHECK_THAT(text, Contains("grid_size"));
  CHECK_THAT(text, Contains("  generator: synthetic\n"));
  CHECK_THAT(text, Contains("every SHA-256 matches index.json"));
  CHECK_THAT(text, Contains("samples (train, first 2)"));
  CHECK_THAT(text, Contains("index=1"));

  datasets::InspectOptions pretty;
  pretty.show = 1;
  pretty.format_sample = [](const datasets::SampleValues& v) {
    return "label is " + std::to_string(*v.slots().get<std::int32_t>("label"));
  };
  CHECK_THAT(datasets::describe(o.out / "test-00000-of-00002.h5", pretty), Contains("#0  label is "));
}

TEST_CASE("values print compactly and nested like numpy", "[datasets][inspect]") {
  datasets::ArraySpec a{"x", datasets::DType::i32, {"r", "c"}, {2, 3}, ""};
  const std::vector<std::int32_t> v = {1, 2, 3, 4, 5, 6};
  const auto* p = reinterpret_cast<const std::uint8_t*>(v.data());
  CHECK(datasets::format_values(a, p) == "[[1, 2, 3], [4, 5, 6]]");
  CHECK(datasets::format_values(a, p, 4) == "[[1, 2, 3], [4, …]]");
  datasets::ArraySpec s{"y", datasets::DType::f64, {}, {}, ""};
  const double d = 0.25;
  CHECK(datasets::format_values(s, reinterpret_cast<const std::uint8_t*>(&d)) == "0.25");
}

TEST_CASE("durations print as h:mm:ss", "[datasets][progress]") {
  CHECK(datasets::format_duration(7) == "0:07");
  CHECK(datasets::format_duration(245) == "4:05");
  CHECK(datasets::format_duration(3723) == "1:02:03");
  datasets::Progress quiet(datasets::ProgressOptions("x", 10).enabled(false));
  quiet.advance(4);
  CHECK(quiet.done() == 4);
}
