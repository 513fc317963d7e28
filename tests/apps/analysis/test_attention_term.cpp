// Where the geometry lives and when it appears: the position-position attention term of pe.h5 scored against the
// true distances with its epoch-0 and permutation controls, and the onset of each probe over training.
#include <catch2/catch.hpp>

#include <fstream>
#include <random>

#include "apps/analysis/analyze_all.hpp"
#include "apps/analysis/onset.hpp"
#include "probe/distance.hpp"
#include "tests/apps/analysis/run_folder_fixture.hpp"
#include "tests/support/temp_files.hpp"

using namespace loci;
namespace fs = std::filesystem;

namespace {

Eigen::MatrixXd normal_matrix(Eigen::Index rows, Eigen::Index cols, unsigned seed) {
  std::mt19937 g(seed);
  std::normal_distribution<double> n;
  Eigen::MatrixXd m(rows, cols);
  for (Eigen::Index i = 0; i < m.size(); ++i) m.data()[i] = n(g);
  return m;
}

nlohmann::json analysis_of(const fs::path& run) {
  std::ifstream in(run / "analysis.json");
  return nlohmann::json::parse(in);
}

}  // namespace

TEST_CASE("the attention term of a block that attends by distance scores high against its epoch 0 and the null") {
  test::TempDir dir;
  const Eigen::MatrixXd distance = probe::pairwise_distance(test::grid4());
  test::FakeRun run;
  run.from_epoch_0 = true;
  // The PE stays a random draw; the logits start random and become "near tokens attend more", each row shifted by
  // a constant of its own (which softmax ignores and the probe must too).
  run.pe_per_eval = {normal_matrix(16, 8, 1), normal_matrix(16, 8, 1), normal_matrix(16, 8, 1)};
  Eigen::MatrixXd learned = -distance;
  for (Eigen::Index i = 0; i < 16; ++i) learned.row(i).array() += 10.0 * static_cast<double>(i);
  run.logits_per_eval = {normal_matrix(16, 16, 2), 0.02 * normal_matrix(16, 16, 3) + 0.01 * learned, learned};
  run.human_accuracy = {0.25, 0.5, 0.9};
  test::write_run(dir.path() / "r", run);
  analysis::analyze_all({dir.path()}, dir.path(), {}, false);
  const auto a = analysis_of(dir.path() / "r");

  const auto& first = a["evaluations"][0]["attention_term"];
  const auto& last = a["evaluations"][2]["attention_term"];
  CHECK(std::abs(first["rsa_spearman"].get<double>()) < 0.3);
  INFO(a["evaluations"][1]["attention_term"].dump());
  // Row-centring (what softmax sees) makes the grid's own row means part of the pairs' order: close to 1, not 1.
  CHECK(last["rsa_spearman"].get<double>() > 0.95);
  CHECK(last["rsa_p_value"].get<double>() < 0.01);
  CHECK(first["rsa_p_value"].get<double>() > 0.05);
  CHECK(a["final"]["qk_rsa_spearman"] == last["rsa_spearman"]);
  CHECK(a["final"]["init_qk_rsa_spearman"] == first["rsa_spearman"]);
  CHECK(a["final"]["qk_rsa_p_value"] == last["rsa_p_value"]);
  // Learned by epoch 10 already (the small grid term dominates the small noise), never in the PE itself.
  CHECK(a["final"]["qk_rsa_onset_epoch"] == 10);
  CHECK(a["final"]["rsa_onset_epoch"].is_null());
  // Each evaluation's PE carries its own permutation test now, not only the last.
  for (const auto& e : a["evaluations"]) CHECK(e["mean"]["rsa_p_value"].is_number());
}

TEST_CASE("a run without the attention term (older runs, PEs without a table) has no such fields") {
  test::TempDir dir;
  test::FakeRun run;
  run.pe_per_eval = {normal_matrix(16, 8, 1), normal_matrix(16, 8, 2)};
  run.human_accuracy = {0.3, 0.4};
  test::write_run(dir.path() / "r", run);
  analysis::analyze_all({dir.path()}, dir.path(), {}, false);
  const auto a = analysis_of(dir.path() / "r");
  CHECK_FALSE(a["evaluations"][0].contains("attention_term"));
  CHECK_FALSE(a["final"].contains("qk_rsa_spearman"));
  CHECK(a["final"]["rsa_onset_epoch"].is_null());  // no epoch 0 to measure from
}

TEST_CASE("an onset needs a permutation-significant value beyond the epoch-0 value by more than the null's spread") {
  using analysis::OnsetPoint;
  // epoch, value, p, null mean, null q95
  const std::vector<OnsetPoint> rising{
      {0, 0.05, 0.3, 0.0, 0.1}, {10, 0.12, 0.04, 0.0, 0.1}, {20, 0.2, 0.01, 0.0, 0.1}, {30, 0.4, 0.001, 0.0, 0.1}};
  // epoch 10 is significant but only 0.07 above the start, within the null's spread of 0.1
  CHECK(analysis::onset_epoch(rising) == std::optional<std::int64_t>(20));
  // high from the start (a PE drawn with the grid in it): significant all along, never an onset
  const std::vector<OnsetPoint> high{{0, 0.9, 0.001, 0.0, 0.1}, {10, 0.92, 0.001, 0.0, 0.1}};
  CHECK_FALSE(analysis::onset_epoch(high).has_value());
  // a large rise that the permutation test does not support
  const std::vector<OnsetPoint> noisy{{0, -0.3, 0.9, 0.0, 0.4}, {10, 0.3, 0.2, 0.0, 0.4}};
  CHECK_FALSE(analysis::onset_epoch(noisy).has_value());
  // no epoch-0 baseline
  CHECK_FALSE(analysis::onset_epoch({{10, 0.5, 0.001, 0.0, 0.1}}).has_value());
}
