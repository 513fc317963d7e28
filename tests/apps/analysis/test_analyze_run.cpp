// One run's analysis: the probes see the PE the trainer saved at each evaluation, against the run's positions and
// the oracle, and analysis.json is kept only while the run's files are unchanged.
#include <catch2/catch.hpp>

#include <algorithm>
#include <fstream>
#include <random>

#include "apps/analysis/analyze_all.hpp"
#include "datasets/folder_lock.hpp"
#include "probe/oracle.hpp"
#include "probe/registry.hpp"
#include "tests/apps/analysis/run_folder_fixture.hpp"
#include "tests/support/temp_files.hpp"

using namespace loci;
namespace fs = std::filesystem;

namespace {

Eigen::MatrixXd random_pe(int d, unsigned seed) {
  std::mt19937 g(seed);
  std::normal_distribution<double> n;
  Eigen::MatrixXd m(16, d);
  for (Eigen::Index i = 0; i < m.size(); ++i) m.data()[i] = n(g);
  return m;
}

// A run of one evaluation: a random 8-dimensional PE drawn from `seed`, 50% on the human split.
test::FakeRun one_evaluation(unsigned seed) {
  test::FakeRun run;
  run.pe_per_eval = {random_pe(8, seed)};
  run.human_accuracy = {0.5};
  return run;
}

nlohmann::json read_json(const fs::path& p) {
  std::ifstream in(p);
  return nlohmann::json::parse(in);
}

}  // namespace

TEST_CASE("A PE equal to the oracle or to the coordinates scores as such and a random PE does not") {
  test::TempDir dir;
  const Eigen::MatrixXd oracle = probe::sinusoidal_oracle(test::grid4(), 8);
  Eigen::MatrixXd coords = Eigen::MatrixXd::Zero(16, 8);
  coords.leftCols(2) = test::grid4();
  test::FakeRun run;
  run.pe_per_eval = {random_pe(8, 1), oracle, coords};
  run.human_accuracy = {0.3, 0.6, 0.9};
  test::write_run(dir.path() / "r", run);

  const auto report = analysis::analyze_all({dir.path()}, dir.path(), {}, false);
  CHECK(report.runs == 1);
  CHECK(report.analysed == 1);
  const auto a = read_json(dir.path() / "r" / "analysis.json");
  REQUIRE(a["evaluations"].size() == 3);
  CHECK(a["evaluations"][0]["epoch"] == 10);
  CHECK(a["evaluations"][2]["step"] == 300);
  const auto& random = a["evaluations"][0]["placements"][0];
  const auto& at_oracle = a["evaluations"][1]["placements"][0];
  const auto& at_coords = a["evaluations"][2]["placements"][0];
  CHECK(at_oracle["procrustes_oracle_disparity"].get<double>() < 1e-9);
  CHECK(random["procrustes_oracle_disparity"].get<double>() > 0.2);
  CHECK(at_coords["rsa_spearman"].get<double>() == Approx(1.0));
  CHECK(at_coords["decode_r2"].get<double>() > 0.95);  // ridge (alpha 1) shrinks a little below 1
  CHECK(at_coords["procrustes_coords_disparity"].get<double>() < 1e-9);
  CHECK(random["rsa_spearman"].get<double>() < 0.5);
  // The last evaluation is the run's result; the task metrics are the last row of each split.
  CHECK(a["final"]["rsa_spearman"] == at_coords["rsa_spearman"]);
  CHECK(a["metrics"]["human"]["accuracy"].get<double>() == 0.9);
  CHECK(a["run"]["group"] == "learned normal(0.2)");
  CHECK(a["partition"] == "rows (distinct values of axis 0)");
  CHECK(a["final_mds"].size() == 16);
  CHECK(a["final_similarity"].size() == 16);
}

TEST_CASE("analysis.json is kept while the run is unchanged and redone when its PE changes") {
  test::TempDir dir;
  test::FakeRun run = one_evaluation(2);
  test::write_run(dir.path() / "r", run);
  analysis::AnalyzeOptions options;
  auto first = analysis::analyze_all({dir.path() / "r"}, dir.path(), options, false);
  CHECK(first.analysed == 1);
  CHECK(analysis::analysis_is_current(dir.path() / "r", options));
  auto again = analysis::analyze_all({dir.path() / "r"}, dir.path(), options, false);
  CHECK(again.kept == 1);
  CHECK(again.analysed == 0);

  options.knn_k = 3;  // other options: another analysis
  CHECK_FALSE(analysis::analysis_is_current(dir.path() / "r", options));

  run.pe_per_eval = {random_pe(8, 3)};  // the run went on: its pe.h5 differs
  test::write_run(dir.path() / "r", run);
  CHECK_FALSE(analysis::analysis_is_current(dir.path() / "r", analysis::AnalyzeOptions{}));
  auto redone = analysis::analyze_all({dir.path() / "r"}, dir.path(), {}, false);
  CHECK(redone.analysed == 1);

  analysis::AnalyzeOptions force;  // --force: every run again, current or not
  force.force = true;
  CHECK(analysis::analysis_is_current(dir.path() / "r", {}));
  CHECK(analysis::analyze_all({dir.path() / "r"}, dir.path(), force, false).analysed == 1);
}

TEST_CASE("A probe registered after an analysis makes that analysis stale, so its column is computed, not NaN") {
  test::TempDir dir;
  test::write_run(dir.path() / "r", one_evaluation(5));
  REQUIRE(analysis::analyze_all({dir.path() / "r"}, dir.path(), {}, false).analysed == 1);
  REQUIRE(analysis::analysis_is_current(dir.path() / "r", {}));
  // As an extension library loaded later would: one more probe in the registry.
  static const ::loci::Registration<probe::ProbeInfo> late(
      probe::ProbeInfo{"late_test_probe",
                       "the PE's first value",
                       {"late_first"},
                       [](const Eigen::MatrixXd& pe, const probe::ProbeContext&) {
                         return probe::ProbeValues{{"late_first", pe(0, 0)}};
                       }});
  CHECK_FALSE(analysis::analysis_is_current(dir.path() / "r", {}));
  CHECK(analysis::analyze_all({dir.path() / "r"}, dir.path(), {}, false).analysed == 1);
}

TEST_CASE("A damaged run is an error naming its file") {
  test::TempDir dir;
  test::FakeRun run = one_evaluation(4);
  test::write_run(dir.path() / "r", run);
  std::ofstream(dir.path() / "r" / "metrics.jsonl", std::ios::app) << "{\"epoch\": 2, trunc\n";
  CHECK_THROWS_WITH(analysis::analyze_all({dir.path()}, dir.path(), {}, false),
                    Catch::Contains((dir.path() / "r" / "metrics.jsonl").string()) && Catch::Contains("line 2"));
}

TEST_CASE("A pe.h5 of more positions than any generator makes is refused, naming the file, before the probes") {
  test::TempDir dir;
  test::FakeRun run;
  run.positions = Eigen::MatrixXd::Zero(20001, 1);
  run.pe_per_eval = {Eigen::MatrixXd::Zero(20001, 2)};
  run.d_model = 2;
  run.human_accuracy = {0.5};
  test::write_run(dir.path() / "r", run);
  CHECK_THROWS_WITH(analysis::analyze_all({dir.path()}, dir.path(), {}, false),
                    Catch::Contains((dir.path() / "r" / "pe.h5").string()) && Catch::Contains("20001 tokens"));
}

TEST_CASE("Only finished runs count: one being written and one that was killed are left out and named") {
  test::TempDir dir;
  test::write_run(dir.path() / "done", one_evaluation(4));
  test::FakeRun killed = one_evaluation(4);
  killed.finished = false;  // no summary.json: stopped before it finished
  test::write_run(dir.path() / "killed", killed);
  test::FakeRun running = one_evaluation(4);
  test::write_run(dir.path() / "running", running);
  std::filesystem::remove(dir.path() / "running" / "summary.json");
  // A live writer holds the running folder's claim, as `loci train` does.
  const datasets::FolderLock writer(dir.path() / "running");
  CHECK(datasets::folder_writer(dir.path() / "running").rfind("pid ", 0) == 0);
  CHECK(datasets::folder_writer(dir.path() / "done").empty());

  const auto report = analysis::analyze_all({dir.path()}, dir.path(), {}, false);
  CHECK(report.runs == 1);
  REQUIRE(report.skipped.size() == 2);
  CHECK_THAT(report.skipped[0], Catch::Contains("killed") && Catch::Contains("no summary.json"));
  CHECK_THAT(report.skipped[1], Catch::Contains("running") && Catch::Contains("being written by pid "));
  CHECK_THAT(analysis::unfinished_lines(report), Catch::StartsWith("loci: left out 2 unfinished runs"));
  const std::string finished_only = test::slurp(dir.path() / "runs.csv");
  CHECK(std::count(finished_only.begin(), finished_only.end(), '\n') == 2);

  // Asked for, they are scored and marked partial, with the epoch they reached.
  analysis::AnalyzeOptions partial;
  partial.include_partial = true;
  const auto all = analysis::analyze_all({dir.path()}, dir.path(), partial, false);
  CHECK(all.runs == 3);
  CHECK(all.partial.size() == 2);
  const std::string runs_csv = test::slurp(dir.path() / "runs.csv");
  CHECK_THAT(runs_csv, Catch::Contains("no summary.json: stopped before it finished,10"));
  CHECK_THAT(test::slurp(dir.path() / "summary.md"), Catch::Contains("Partial runs, not finished"));

  // Nothing finished at all: one line saying so, not an empty summary.
  test::TempDir none;
  test::write_run(none.path() / "killed", killed);
  CHECK_THROWS_WITH(analysis::analyze_all({none.path()}, none.path(), {}, false),
                    Catch::StartsWith("no finished run to analyse: 1 runs have not finished"));
}

TEST_CASE("The shuffled-positions control: a PE that is the grid falls to its null once positions are permuted") {
  test::TempDir dir;
  Eigen::MatrixXd coords = Eigen::MatrixXd::Zero(16, 8);
  coords.leftCols(2) = test::grid4();
  test::FakeRun run;
  run.from_epoch_0 = true;
  run.pe_per_eval = {random_pe(8, 3), coords};
  run.human_accuracy = {0.9};
  test::write_run(dir.path() / "r", run);

  analysis::analyze_all({dir.path()}, dir.path(), {}, false);
  const auto plain = read_json(dir.path() / "r" / "analysis.json")["final"];
  CHECK(plain["rsa_spearman"].get<double>() == Approx(1.0));
  CHECK(plain["rsa_p_value"].get<double>() < 0.01);
  CHECK(plain["rsa_took_shape"] == true);

  analysis::AnalyzeOptions shuffled;
  shuffled.shuffle_positions = 7;
  analysis::analyze_all({dir.path()}, dir.path(), shuffled, false);  // another option: recomputed, not kept
  const auto a = read_json(dir.path() / "r" / "analysis.json");
  CHECK(a["options"]["shuffle_positions"] == 7);
  const auto& f = a["final"];
  INFO(f.dump());
  // Every probe of position at its null: RSA near 0 and not significant, decoding no better than the mean,
  // Procrustes far from the coordinates and the oracle, no onset, no shape taken.
  CHECK(std::abs(f["rsa_spearman"].get<double>()) < 0.25);
  CHECK(f["rsa_p_value"].get<double>() > 0.05);
  CHECK(f["decode_r2"].get<double>() < 0.3);
  CHECK(f["procrustes_coords_disparity"].get<double>() > 0.5);
  CHECK(f["procrustes_oracle_disparity"].get<double>() > 0.5);
  CHECK(f["rsa_onset_epoch"].is_null());
  CHECK(f["rsa_took_shape"] == false);
}
