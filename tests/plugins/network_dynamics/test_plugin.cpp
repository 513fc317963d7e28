// network_dynamics end to end: `loci generate` on a tiny config, then the shards read back through the dataset
// reader: arrays, attributes, the window/run plan, determinism across thread counts, and config errors.
#include <catch2/catch.hpp>

#include <filesystem>
#include <set>
#include <string>

#include "datasets/reader.hpp"
#include "tests/support/generated.hpp"
#include "tests/support/run_command.hpp"
#include "tests/support/temp_files.hpp"

namespace fs = std::filesystem;
using loci::test::refusal;
using loci::test::run_loci;

namespace {

// 16 nodes on a 4 x 4 torus: 32 edges, every node of degree 4.
const char* kConfig = R"yaml(
generator: network_dynamics
seed: 3
splits: {train: 12, test: 4, test_noise: 4}
samples_per_shard: 5
compression: none
threads: 1
graph:
  topology: lattice
  nodes: 16
  dims: 2
  lattice: {periodic: true}
dynamics:
  model: rate
  burn_in: 20
windows:
  length: 10
  runs: {train: 3, test: 1, test_noise: 1}
)yaml";

}  // namespace

TEST_CASE("loci generate: network_dynamics shards hold windows - graph arrays and attributes", "[network][plugin]") {
  const loci::test::TempDir dir;
  const auto config = dir.write("network.yaml", kConfig);
  const auto out = dir.at("data");
  const auto ds = loci::test::generated(config, out);
  REQUIRE(ds.samples("train") == 12);
  REQUIRE(ds.samples("test") == 4);
  REQUIRE(ds.samples("test_noise") == 4);
  ds.expect("activity", loci::datasets::DType::f32, {16, 10});
  ds.expect("positions", loci::datasets::DType::f32, {16, 2});
  ds.expect("adjacency", loci::datasets::DType::u8, {16, 16});
  ds.expect("distance", loci::datasets::DType::f32, {16, 16});
  ds.expect("hops", loci::datasets::DType::i32, {16, 16});

  const auto attrs = ds.attributes();
  CHECK(std::get<std::int64_t>(attrs.at("edges")) == 32);
  CHECK(std::get<std::string>(attrs.at("topology")) == "lattice");
  CHECK(std::get<std::string>(attrs.at("model")) == "rate");
  CHECK(std::get<std::string>(attrs.at("coupling")) == "in_degree");  // the typed choice's default, by its name
  CHECK(std::get<double>(attrs.at("model.g")) == 4.0);
  // A flag is stored as the integer it is (h5py shows 1, not 1.0).
  CHECK(std::get<std::int64_t>(attrs.at("topology.periodic")) == 1);
  CHECK(std::get<double>(attrs.at("dt")) == 0.1);
  CHECK(std::get<std::int64_t>(attrs.at("noise_seed.test_noise")) == 1);

  const auto adjacency = ds.read_dataset_array("adjacency");
  int ones = 0;
  for (auto b : adjacency.bytes) ones += b;
  CHECK(ones == 64);
  const auto hops = ds.read_dataset_array("hops");
  const auto* h = reinterpret_cast<const std::int32_t*>(hops.bytes.data());
  CHECK(h[0] == 0);
  CHECK(h[1] == 1);   // (0,0) - (0,1)
  CHECK(h[10] == 4);  // (0,0) - (2,2) on the torus
  const auto positions = ds.read_dataset_array("positions");
  const auto* p = reinterpret_cast<const float*>(positions.bytes.data());
  CHECK(p[0] == 0.125f);
  CHECK(p[3] == 0.375f);

  // Train sample i: run i mod 3, window i div 3. Test and test_noise have their own runs.
  const auto run = ds.read<std::int64_t>("train", "run", 0, 12);
  const auto start = ds.read<std::int64_t>("train", "start", 0, 12);
  for (int i = 0; i < 12; ++i) {
    CHECK(run[i] == i % 3);
    CHECK(start[i] == (i / 3) * 10);
  }
  CHECK(ds.read<std::int64_t>("test", "run", 0, 4) == std::vector<std::int64_t>(4, 3));
  CHECK(ds.read<std::int64_t>("test_noise", "run", 0, 4) == std::vector<std::int64_t>(4, 0));
  const auto train = ds.read<float>("train", "activity", 0, 12);
  const auto test = ds.read<float>("test", "activity", 0, 4);
  const auto test_noise = ds.read<float>("test_noise", "activity", 0, 4);
  for (float v : train) REQUIRE((v > 0 && v < 1));  // rates of a sigmoid
  CHECK(std::vector<float>(test.begin(), test.begin() + 160) != std::vector<float>(train.begin(), train.begin() + 160));
  CHECK(std::vector<float>(test_noise.begin(), test_noise.begin() + 160) !=
        std::vector<float>(train.begin(), train.begin() + 160));

  SECTION("same seed with 2 threads: identical samples") {
    const auto out2 = dir.at("data2");
    REQUIRE(run_loci("generate " + config + " out=" + out2 + " threads=2").exit_code == 0);
    const auto ds2 = loci::datasets::Dataset::open(out2);
    CHECK(ds2.read<float>("train", "activity", 0, 12) == train);
    CHECK(ds2.read<float>("test_noise", "activity", 0, 4) == test_noise);
  }

  SECTION("a longer window starts with the same points: runs do not depend on how they are cut") {
    const auto out3 = dir.at("data3");
    REQUIRE(run_loci("generate " + config + " out=" + out3 + " windows.length=20 splits.train=3").exit_code == 0);
    const auto wide = loci::datasets::Dataset::open(out3).read<float>("train", "activity", 0, 1);
    // Node 0 of run 0: points 0..9 are train sample 0, points 10..19 train sample 3.
    for (int t = 0; t < 10; ++t) {
      CHECK(wide[t] == train[t]);
      CHECK(wide[10 + t] == train[3 * 160 + t]);
    }
  }

  SECTION("inspect --show draws the window") {
    const auto shown = run_loci("inspect " + out + " --show 1");
    INFO(shown.output);
    CHECK(shown.exit_code == 0);
    CHECK(shown.output.find("run 0, points 0..9") != std::string::npos);
  }
}

TEST_CASE("network_dynamics with conduction delays: other data - recorded - too short a delay is an error",
          "[network][plugin][delays]") {
  const loci::test::TempDir dir;
  const auto config = dir.write("network.yaml", kConfig);
  REQUIRE(run_loci("generate " + config + " out=" + dir.at("plain")).exit_code == 0);
  // Lattice edges are 0.25 long: 8 steps per unit delays every edge by 2 steps.
  const auto made = run_loci("generate " + config + " out=" + dir.at("late") + " dynamics.delay_steps_per_unit=8");
  INFO(made.output);
  REQUIRE(made.exit_code == 0);
  const auto plain = loci::datasets::Dataset::open(dir.at("plain"));
  const auto late = loci::datasets::Dataset::open(dir.at("late"));
  CHECK(std::get<double>(late.attributes().at("delay_steps_per_unit")) == 8.0);
  CHECK(late.read<float>("train", "activity", 0, 12) != plain.read<float>("train", "activity", 0, 12));
  const auto none = run_loci("generate " + config + " out=" + dir.at("none") + " dynamics.delay_steps_per_unit=1");
  CHECK(none.exit_code == 1);
  CHECK(none.output.find("delay_steps_per_unit = 1") != std::string::npos);
  CHECK(none.output.find("rounds every edge's delay to 0 steps") != std::string::npos);
}

TEST_CASE("network_dynamics config errors name the key", "[network][plugin]") {
  const loci::test::TempDir dir;
  const auto config = dir.write("network.yaml", kConfig);
  CHECK_THAT(refusal(run_loci("generate " + config + " out=" + dir.at("x") + " splits.val=3")),
             Catch::Contains("split 'val' has no entry in windows.runs"));
  CHECK_THAT(refusal(run_loci("generate " + config + " out=" + dir.at("y") + " graph.nodes=15")),
             Catch::Contains("must be side^2"));
  CHECK_THAT(refusal(run_loci("generate " + config + " out=" + dir.at("z") + " graph.waxman.alpah=0.3")),
             Catch::Contains("alpha"));
  const auto coupling = refusal(run_loci("generate " + config + " out=" + dir.at("w") + " dynamics.coupling=rows"));
  CHECK_THAT(coupling, Catch::Contains("dynamics.coupling"));
  CHECK_THAT(coupling, Catch::Contains("in_degree"));  // the refusal lists the choices
  const auto schema = run_loci("config schema network_dynamics");
  CHECK(schema.exit_code == 0);
  CHECK(schema.output.find("graph.waxman.alpha") != std::string::npos);
  CHECK(schema.output.find("dynamics.stuart_landau.omega") != std::string::npos);
}
