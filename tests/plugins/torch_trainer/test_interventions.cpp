// `loci intervene`: a finished run's model evaluated with its PE changed, as a researcher runs it after training,
// and `loci analyze` carrying the changes into the summary.
#include <catch2/catch.hpp>

#include <filesystem>
#include <set>

#include <nlohmann/json.hpp>

#include "tests/plugins/torch_trainer/trainer_fixture.hpp"
#include "tests/support/run_command.hpp"
#include "tests/support/temp_files.hpp"

using loci::test::run_loci;
using loci::test::slurp;
using loci::test::train_config;
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

fs::path trained_run(const loci::test::TempDir& dir, const std::string& pe, const std::string& epochs = "4") {
  const auto cfg = train_config(dir);
  const auto r = run_loci("train -q " + cfg + " model.pe.type=" + pe + " train.epochs=" + epochs);
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  return dir.path() / "run";
}

json read_json(const fs::path& file) { return json::parse(slurp(file)); }

}  // namespace

TEST_CASE("loci intervene scores every intervention per split, per block and per position, and analyze sums them") {
  loci::test::TempDir dir;
  const fs::path run = trained_run(dir, "learned");
  const auto r = run_loci("intervene -q --permutations 2 " + run.string());
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  const json j = read_json(run / "interventions.json");
  const json summary = read_json(run / "summary.json");
  // The unchanged model scores what training's last evaluation scored.
  REQUIRE(j["baseline"].contains("test"));
  CHECK_FALSE(j["baseline"].contains("train"));  // the training split is not scored by default
  CHECK(j["baseline"]["test"].get<double>() ==
        Approx(summary["final"]["test"]["accuracy"].get<double>()).margin(1e-12));
  std::set<std::string> names, scopes;
  int symmetries = 0;
  for (const auto& row : j["results"]) {
    names.insert(row["intervention"].get<std::string>());
    scopes.insert(row["scope"].get<std::string>());
    CHECK(row["change"].get<double>() ==
          Approx(row["value"].get<double>() - j["baseline"][row["split"].get<std::string>()].get<double>()));
    if (row["intervention"] == "permute_symmetry" && row["scope"] == "all" && row["split"] == "test") {
      ++symmetries;
      CHECK(row["distortion"].get<double>() == Approx(0).margin(1e-12));
    }
  }
  CHECK(names == std::set<std::string>{"init", "displacement", "permute_random", "permute_symmetry", "permute_matched",
                                       "zero", "rescale", "oracle"});
  CHECK(scopes == std::set<std::string>{"all", "block0", "block1"});
  CHECK(symmetries == 7);  // the 4x4 grid's rotations and reflections
  CHECK(j["per_position"]["change"].size() == 16);
  CHECK(
      slurp(run / "interventions.csv").rfind("intervention,variant,scope,split,metric,value,change,distortion\n", 0) ==
      0);

  SECTION("a second call keeps current interventions; --force writes the same bytes again") {
    const std::string before = slurp(run / "interventions.json");
    const auto again = run_loci("intervene " + run.string());
    CHECK(again.exit_code == 0);
    CHECK(again.output.find("kept") != std::string::npos);
    const auto forced = run_loci("intervene -q --force --permutations 2 " + run.string());
    REQUIRE(forced.exit_code == 0);
    CHECK(slurp(run / "interventions.json") == before);
  }
  SECTION("loci analyze puts the changes, whole model and per block, into analysis.json and summary.csv") {
    const auto a = run_loci("analyze -q " + run.string() + " -o " + (dir.path() / "analysis").string());
    INFO(a.output);
    REQUIRE(a.exit_code == 0);
    CHECK(read_json(run / "analysis.json")["interventions"]["results"].size() == j["results"].size());
    const std::string header = slurp(dir.path() / "analysis" / "summary.csv").substr(0, 100000);
    CHECK(header.find("test_accuracy_change_zero_mean") != std::string::npos);
    CHECK(header.find("test_accuracy_change_permute_symmetry_block1_mean") != std::string::npos);
    CHECK(header.find("test_accuracy_symmetry_minus_matched_mean") != std::string::npos);
    // The report draws them.
    const auto rep =
        run_loci("report " + (dir.path() / "analysis").string() + " -o " + (dir.path() / "report").string());
    INFO(rep.output);
    REQUIRE(rep.exit_code == 0);
    CHECK(slurp(dir.path() / "report" / "report.html").find("id=\"interventions\"") != std::string::npos);
  }
}

TEST_CASE("the oracle put in place of a run whose PE is the oracle changes nothing, anywhere") {
  loci::test::TempDir dir;
  const fs::path run = trained_run(dir, "sinusoidal_nd", "2");
  const auto r = run_loci("intervene -q --only oracle,zero --no-per-position " + run.string());
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  const json j = read_json(run / "interventions.json");
  int oracle_rows = 0;
  for (const auto& row : j["results"]) {
    CHECK((row["intervention"] == "oracle" || row["intervention"] == "zero"));
    if (row["intervention"] == "oracle") {
      ++oracle_rows;
      CHECK(row["change"].get<double>() == 0.0);
    }
  }
  CHECK(oracle_rows == 3 * static_cast<int>(j["baseline"].size()));  // all, block0, block1 on each scored split
  CHECK(j["per_position"].is_null());
}

TEST_CASE("loci intervene refuses what it cannot score, in one line naming what and where") {
  loci::test::TempDir dir;
  SECTION("a PE without rows") {
    const fs::path run = trained_run(dir, "rope", "1");
    const auto r = run_loci("intervene -q " + run.string());
    CHECK(r.exit_code == 1);
    CHECK(r.output.find("'rope' adds no [tokens, d_model] matrix") != std::string::npos);
    CHECK_FALSE(fs::exists(run / "interventions.json"));
  }
  SECTION("another run's checkpoint in its place") {
    const fs::path run = trained_run(dir, "learned", "1");
    loci::test::TempDir other_dir;
    const auto cfg = train_config(other_dir);
    REQUIRE(run_loci("train -q " + cfg + " train.epochs=1 model.pe.init.std=2.0").exit_code == 0);
    fs::copy_file(other_dir.path() / "run" / "checkpoints" / "last.pt", run / "checkpoints" / "last.pt",
                  fs::copy_options::overwrite_existing);
    const auto r = run_loci("intervene -q " + run.string());
    CHECK(r.exit_code == 1);
    CHECK(r.output.find("last.pt") != std::string::npos);
    CHECK_FALSE(fs::exists(run / "interventions.json"));
  }
  SECTION("an unfinished run, a run without its checkpoint, an unknown intervention, a folder without runs") {
    const fs::path run = trained_run(dir, "learned", "1");
    const auto unknown = run_loci("intervene -q --only shuffle " + run.string());
    CHECK(unknown.exit_code == 1);
    CHECK(unknown.output.find("--only shuffle: no such intervention") != std::string::npos);
    fs::rename(run / "checkpoints" / "last.pt", dir.path() / "last.pt");
    const auto no_checkpoint = run_loci("intervene -q " + run.string());
    CHECK(no_checkpoint.exit_code == 1);
    CHECK(no_checkpoint.output.find("last.pt: no checkpoint") != std::string::npos);
    fs::rename(dir.path() / "last.pt", run / "checkpoints" / "last.pt");
    fs::remove(run / "summary.json");
    const auto unfinished = run_loci("intervene -q " + run.string());
    CHECK(unfinished.exit_code == 1);
    CHECK(unfinished.output.find("not a finished run (no summary.json)") != std::string::npos);
    const auto empty = run_loci("intervene -q " + (dir.path() / "nothing").string());
    CHECK(empty.exit_code == 1);
  }
}
