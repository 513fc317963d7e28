// What goes in comes out: every dtype, the dataset-level arrays, the attributes, index.json and the card.
#include <catch2/catch.hpp>

#include <cstring>
#include <set>

#include <yaml-cpp/yaml.h>
#include <nlohmann/json.hpp>

#include "datasets/dataset_card.hpp"
#include "datasets/generate.hpp"
#include "datasets/reader.hpp"
#include "synthetic_source.hpp"
#include "test_util.hpp"

using namespace loci;
using datasets::DType;

namespace {

// The bytes the source makes for sample `index` of `split`, array by array.
std::vector<std::vector<std::uint8_t>> expected_sample(const test::SyntheticSource& src, const std::string& split,
                                                       std::int64_t index, std::uint64_t seed) {
  const auto& specs = src.layout().sample_arrays;
  std::vector<std::vector<std::uint8_t>> bytes(specs.size());
  std::vector<void*> slots;
  for (std::size_t a = 0; a < specs.size(); ++a) {
    bytes[a].assign(specs[a].bytes(), 0);
    slots.push_back(bytes[a].data());
  }
  src.fill({split, index, seed}, datasets::SampleSlots(&specs, slots));
  return bytes;
}

}  // namespace

TEST_CASE("every dtype and dataset array and attribute reads back as written", "[datasets][roundtrip]") {
  const auto dir = test::fresh_dir("roundtrip");
  const test::SyntheticSource src;
  auto o = test::small_options(dir / "ds");
  o.chunk_samples = 4;
  const auto report = datasets::generate_dataset(src, o);
  CHECK(report.shards_written == 4 + 2);
  CHECK(report.samples_written == 53);
  CHECK(report.complete);

  const auto ds = datasets::Dataset::open(dir / "ds");
  REQUIRE(ds.splits() == std::vector<std::string>{"train", "test"});
  CHECK(ds.samples("train") == 40);
  CHECK(ds.samples("test") == 13);
  REQUIRE(ds.arrays().size() == src.layout().sample_arrays.size());

  std::set<DType> seen;
  for (const std::string split : {"train", "test"}) {
    const std::int64_t n = ds.samples(split);
    for (std::size_t a = 0; a < ds.arrays().size(); ++a) {
      const auto& info = ds.arrays()[a];
      const auto& spec = src.layout().sample_arrays[a];
      CHECK(info.name == spec.name);
      CHECK(info.dtype == spec.dtype);
      CHECK(info.dims == spec.dims);
      CHECK(info.shape == spec.shape);
      seen.insert(info.dtype);
      // Across shard boundaries (10 per shard) and chunk boundaries (4 per chunk).
      std::vector<std::uint8_t> all(info.bytes() * static_cast<std::size_t>(n));
      ds.read(split, info.name, 0, n, all.data(), info.dtype);
      for (std::int64_t i = 0; i < n; ++i) {
        const auto want = expected_sample(src, split, i, o.seed)[a];
        INFO(split << " sample " << i << " array " << info.name);
        REQUIRE(std::memcmp(all.data() + static_cast<std::size_t>(i) * info.bytes(), want.data(), want.size()) == 0);
      }
    }
    const auto ids = ds.read<std::int64_t>(split, "sample_id", 0, n);
    for (std::int64_t i = 0; i < n; ++i) CHECK(ids[static_cast<std::size_t>(i)] == i);
  }
  CHECK(seen.size() == 10);

  // A range in the middle, spanning two shards, through the typed reader.
  const auto index = ds.read<std::int64_t>("train", "index", 8, 5);
  CHECK(index == std::vector<std::int64_t>{8, 9, 10, 11, 12});

  for (const auto& a : src.layout().dataset_arrays) {
    const datasets::Array got = ds.read_dataset_array(a.spec.name);
    CHECK(got.spec.dtype == a.spec.dtype);
    CHECK(got.spec.dims == a.spec.dims);
    CHECK(got.spec.shape == a.spec.shape);
    CHECK(got.bytes == a.bytes);
  }

  CHECK(ds.read_text("token_name") == test::SyntheticSource::names());
  CHECK(ds.read_text("no_such_text").empty());

  const auto attrs = ds.attributes();
  CHECK(std::get<std::int64_t>(attrs.at("loci_schema_version")) == 1);
  CHECK(std::get<std::string>(attrs.at("generator")) == "synthetic");
  CHECK(std::get<std::string>(attrs.at("generator_version")) == "1.0.0");
  CHECK(std::get<std::int64_t>(attrs.at("seed")) == 7);
  CHECK(std::get<std::string>(attrs.at("split")) == "train");
  CHECK(std::get<std::int64_t>(attrs.at("shard_index")) == 0);
  CHECK(std::get<std::int64_t>(attrs.at("shard_count")) == 4);
  CHECK(std::get<std::string>(attrs.at("config_yaml")) == o.config_yaml);
  CHECK(std::get<std::string>(attrs.at("created")) == "2000-01-01T00:00:00Z");
  CHECK(std::get<std::string>(attrs.at("loci_version")) == "0.1.0");
  CHECK(std::get<std::int64_t>(attrs.at("plugin_abi")) == 1);
  CHECK(std::get<std::int64_t>(attrs.at("grid_size")) == 3);
  CHECK(std::get<double>(attrs.at("rate")) == 0.5);
  CHECK(std::get<std::string>(attrs.at("kind")) == "synthetic");

  const auto index_json = nlohmann::json::parse(test::slurp(dir / "ds" / "index.json"));
  CHECK(index_json["loci_schema_version"] == 1);
  CHECK(index_json["seed"] == 7);
  CHECK(index_json["config_yaml"] == o.config_yaml);
  REQUIRE(index_json["shards"].size() == 6);
  CHECK(index_json["shards"][0]["file"] == "train-00000-of-00004.h5");
  CHECK(index_json["shards"][5]["file"] == "test-00001-of-00002.h5");
  CHECK(index_json["shards"][5]["samples"] == 3);
  CHECK(index_json["shards"][0]["sha256"].get<std::string>().size() == 64);
  REQUIRE(index_json["text_arrays"].size() == 1);
  CHECK(index_json["text_arrays"][0]["name"] == "token_name");
  CHECK(index_json["text_arrays"][0]["dtype"] == "string");
  CHECK(index_json["text_arrays"][0]["shape"] == nlohmann::json::array({6}));
  CHECK(datasets::Index::load(dir / "ds" / "index.json").text_arrays.size() == 1);

  const std::string card = test::slurp(dir / "ds" / "dataset_card.md");
  CHECK(card.rfind("---\npretty_name:", 0) == 0);
  CHECK_THAT(card, Catch::Contains("license: cc-by-4.0"));
  CHECK_THAT(card, Catch::Contains("- n<1K"));
  CHECK_THAT(card, Catch::Contains("    - name: tokens\n      dtype: uint8\n      shape: [6, 3]"));
  CHECK_THAT(card, Catch::Contains("    - name: train\n      num_examples: 40"));
  CHECK_THAT(card, Catch::Contains(o.card_prose));
  CHECK_THAT(card, Catch::Contains("loci_test_generate OUT"));
  CHECK_THAT(card, Catch::Contains("true grid coordinates"));
  CHECK_THAT(card, Catch::Contains("    - name: token_name\n      dtype: string\n      shape: [6]"));

  // Nothing but the dataset is left behind: no journal, no temporaries.
  CHECK(test::files_in(dir / "ds") == std::vector<std::string>{"dataset_card.md", "index.json",
                                                               "test-00000-of-00002.h5", "test-00001-of-00002.h5",
                                                               "train-00000-of-00004.h5", "train-00001-of-00004.h5",
                                                               "train-00002-of-00004.h5", "train-00003-of-00004.h5"});
  CHECK(ds.verify().shards == 6);
}

TEST_CASE("a lone shard opens without its folder's index", "[datasets][roundtrip]") {
  const auto dir = test::fresh_dir("lone");
  const test::SyntheticSource src;
  datasets::generate_dataset(src, test::small_options(dir / "ds"));
  const auto shard = datasets::Dataset::open(dir / "ds" / "train-00001-of-00004.h5");
  CHECK_FALSE(shard.is_folder());
  REQUIRE(shard.splits() == std::vector<std::string>{"train"});
  CHECK(shard.samples("train") == 10);
  CHECK(shard.read<std::int64_t>("train", "sample_id", 0, 2) == std::vector<std::int64_t>{10, 11});
  CHECK(shard.read<std::int64_t>("train", "index", 9, 1) == std::vector<std::int64_t>{19});
  CHECK(shard.array("tokens").dims == std::vector<std::string>{"token", "channel"});
  CHECK(shard.array("positions").per_sample == false);
  CHECK(shard.index().generator == "synthetic");
  CHECK(shard.verify().shards == 1);
}

TEST_CASE("the card's front matter holds any licence or name as one value: a line break cannot end it",
          "[datasets][card]") {
  datasets::Index index;
  index.generator = "synthetic";
  index.generator_version = "1";
  datasets::CardText text;
  text.license = "mit\ninjected: true\n---\n<script>alert(1)</script>";
  text.pretty_name = "a \"name\"\n---";
  const std::string card = datasets::dataset_card(index, text);
  REQUIRE(card.rfind("---\n", 0) == 0);
  const std::string header = card.substr(4, card.find("\n---\n", 4) - 4);
  const YAML::Node front = YAML::Load(header);
  CHECK(front["license"].as<std::string>() == text.license);
  CHECK(front["pretty_name"].as<std::string>() == text.pretty_name);
  CHECK_FALSE(front["injected"]);
  CHECK(card.find("\n<script>") == std::string::npos);
}
