// The shipped pipelines of Experiments 2 and 3 resolve, train every PE of their sweeps and analyse them, here on
// tiny data (16 nodes or parcels, windows of 6 points, one epoch): the quick pipelines a user runs are the same
// files with their own sizes.
#include <catch2/catch.hpp>

#include <algorithm>
#include <fstream>
#include <set>
#include <sstream>

#include "tests/support/run_command.hpp"
#include "tests/support/temp_files.hpp"

using loci::test::run_loci;
namespace fs = std::filesystem;

namespace {

std::string read_file(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// The first line of summary.csv split at commas, and the set of values in column `name` of the other lines.
std::set<std::string> column_values(const std::string& csv, const std::string& name) {
  std::istringstream in(csv);
  std::string line;
  std::getline(in, line);
  std::vector<std::string> header;
  for (std::stringstream h(line); std::getline(h, line, ',');) header.push_back(line);
  const auto at = std::find(header.begin(), header.end(), name) - header.begin();
  std::set<std::string> values;
  while (std::getline(in, line)) {
    std::vector<std::string> cells;
    // Group names hold no quoted commas in these sweeps; a quoted cell would only shift later columns.
    for (std::stringstream c(line); std::getline(c, line, ',');) cells.push_back(line);
    if (at < static_cast<long>(cells.size())) values.insert(cells[static_cast<std::size_t>(at)]);
  }
  return values;
}

void check_pipeline(const std::string& config, const std::string& data_overrides) {
  loci::test::TempDir dir;
  const fs::path out = dir.path() / "p";
  const auto r =
      run_loci("run -q " + std::string(LOCI_SOURCE_DIR) + "/configs/paper/" + config + " out=" + out.string() + " " +
               data_overrides + " train.train.epochs=1 train.train.eval_every=1 train.train.precision=fp32");
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  const std::string summary = read_file(out / "analysis" / "summary.csv");
  CHECK(column_values(summary, "pe_type") ==
        std::set<std::string>{"learned", "none", "random_fixed", "rope_axial", "sinusoidal_nd"});
  // The five sigmas of the learned PE (random_fixed is drawn at 1), and none for the fixed PEs.
  CHECK(column_values(summary, "sigma") == std::set<std::string>{"", "0.01", "0.2", "0.5", "1", "3"});
  // The FC comparison and the dataset's identifiability reach the summary.
  CHECK(summary.find("rsa_fc_spearman_mean") != std::string::npos);
  CHECK(summary.find("data_fc_distance_spearman_mean") != std::string::npos);
  CHECK(summary.find("test@0.5_r2_token_mean_mean") != std::string::npos);
  CHECK(read_file(out / "report" / "report.html").find("id=\"r2_vs_sigma\"") != std::string::npos);
}

}  // namespace

TEST_CASE("configs/paper/exp2_network_quick.yaml runs end to end on a tiny network") {
  check_pipeline("exp2_network_quick.yaml",
                 "generate.splits.train=32 generate.splits.test=8 generate.splits.test_noise=8 "
                 "generate.graph.nodes=16 generate.windows.length=6 generate.windows.stride=6");
}

TEST_CASE("configs/paper/exp3_parcels_quick.yaml runs end to end on a tiny brain") {
  check_pipeline("exp3_parcels_quick.yaml",
                 "generate.splits.train=32 generate.splits.test=8 generate.subjects.train=2 generate.subjects.test=1 "
                 "generate.parcels.count=16 generate.volume.voxel_mm=12 generate.windows.length=6 "
                 "generate.windows.stride=6");
}

// Experiment 2 across datasets: the generate stage's sweep makes one graph per seed, the train grid runs on each,
// and the analysis pools them (a group is one PE over every graph and seed) while its comparisons stay paired.
TEST_CASE("a swept generate stage makes a dataset per point, trains the grid on each and the summary pools them") {
  loci::test::TempDir dir;
  const fs::path out = dir.path() / "p";
  const auto r = run_loci("run -q " + std::string(LOCI_SOURCE_DIR) +
                          "/configs/paper/exp2_network_datasets.yaml out=" + out.string() +
                          " generate.splits.train=32 generate.splits.test=8 generate.splits.test_noise=8 "
                          "generate.graph.nodes=16 generate.windows.length=6 generate.windows.stride=6 "
                          "'generate.sweep=[\"seed=0,1\"]' "
                          "'train.sweep=[\"model.pe.type=learned\",\"model.pe.init.std=0.2,3.0\",\"seed=0\"]' "
                          "train.train.epochs=1 train.train.eval_every=1 train.train.precision=fp32");
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  // Two graphs, each its own dataset: their true positions differ, so their shards do.
  const std::string a = read_file(out / "data" / "seed=0" / "index.json"),
                    b = read_file(out / "data" / "seed=1" / "index.json");
  REQUIRE(!a.empty());
  REQUIRE(!b.empty());
  CHECK(a != b);
  std::size_t runs = 0;
  for (const auto& e : fs::directory_iterator(out / "runs")) runs += fs::exists(e.path() / "summary.json");
  CHECK(runs == 4);
  // Pooled: one row per sigma, each over both graphs.
  const std::string summary = read_file(out / "analysis" / "summary.csv");
  CHECK(column_values(summary, "sigma") == std::set<std::string>{"0.2", "3"});
  CHECK(column_values(summary, "runs") == std::set<std::string>{"2"});
  CHECK(column_values(summary, "datasets") == std::set<std::string>{"2"});
  CHECK(read_file(out / "analysis" / "summary.md").find("the 2 datasets, pooled") != std::string::npos);
  // The report's table and captions say what the spread runs over: seeds and the pooled graphs.
  const std::string page = read_file(out / "report" / "report.html");
  CHECK(page.find("mean ± sd over seeds and 2 pooled datasets at the last evaluation") != std::string::npos);
  CHECK(page.find("mean ± sd over seeds at") == std::string::npos);
  // The sigma comparison pairs the runs on one graph with one PE draw.
  CHECK(read_file(out / "analysis" / "comparisons.csv").find(",paired,2,2,") != std::string::npos);
  // Not pooled, each graph's runs are groups of their own.
  const auto apart = run_loci("analyze -q " + (out / "runs").string() + " --out " + (dir.path() / "apart").string());
  INFO(apart.output);
  REQUIRE(apart.exit_code == 0);
  const std::string split = read_file(dir.path() / "apart" / "summary.csv");
  CHECK(column_values(split, "runs") == std::set<std::string>{"1"});
  CHECK(column_values(split, "datasets") == std::set<std::string>{"1"});
}
