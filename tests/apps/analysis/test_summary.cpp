// The summary across runs: groups are runs differing only in seed, numbers are mean and sample sd over the group.
#include <catch2/catch.hpp>

#include <cmath>
#include <fstream>
#include <sstream>

#include "apps/analysis/analyze_all.hpp"
#include "tests/apps/analysis/run_folder_fixture.hpp"
#include "tests/support/temp_files.hpp"

using namespace loci;
namespace fs = std::filesystem;

namespace {

std::string read_text(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// The value in column `name` of the line starting with `key`.
std::string cell(const std::string& csv, const std::string& key, const std::string& name) {
  std::istringstream in(csv);
  std::string header, line;
  std::getline(in, header);
  auto split = [](const std::string& l) {
    std::vector<std::string> out;
    std::stringstream s(l);
    for (std::string c; std::getline(s, c, ',');) out.push_back(c);
    return out;
  };
  const auto cols = split(header);
  while (std::getline(in, line))
    if (line.rfind(key, 0) == 0) {
      const auto cells = split(line);
      for (std::size_t i = 0; i < cols.size(); ++i)
        if (cols[i] == name) return cells.at(i);
    }
  return "<absent>";
}

// A learned run whose PE is the grid with 2 sigma times one fixed noise pattern: more sigma, less grid.
test::FakeRun noisy_grid_run(double sigma) {
  Eigen::MatrixXd coords = Eigen::MatrixXd::Zero(16, 4);
  coords.leftCols(2) = test::grid4();
  Eigen::MatrixXd noise(16, 4);
  for (int i = 0; i < 16; ++i)
    for (int j = 0; j < 4; ++j) noise(i, j) = std::sin(1.7 * i + 0.9 * j + 0.3 * i * j);
  test::FakeRun run;
  run.sigma = sigma;
  run.d_model = 4;
  run.pe_per_eval = {coords + 2.0 * sigma * noise};
  return run;
}

// Three learned groups at sigma 0.1, 0.5 and 2 (noisy_grid_run), each scored by `score` (its accuracy or MSE set
// from the group's index), analysed together; the text of correlations.csv.
template <class Score>
std::string correlations_across_sigma(const test::TempDir& dir, Score score) {
  const double sigmas[] = {0.1, 0.5, 2.0};
  for (int g = 0; g < 3; ++g) {
    test::FakeRun run = noisy_grid_run(sigmas[g]);
    score(run, g);
    test::write_run(dir.path() / "sweep" / ("s" + std::to_string(sigmas[g])), run);
  }
  analysis::analyze_all({dir.path() / "sweep"}, dir.path() / "out", {}, false);
  return read_text(dir.path() / "out" / "correlations.csv");
}

}  // namespace

TEST_CASE("The summary groups seeds and reports mean and sd of each split and probe") {
  test::TempDir dir;
  Eigen::MatrixXd coords = Eigen::MatrixXd::Zero(16, 4);
  coords.leftCols(2) = test::grid4();
  struct Point {
    std::string type;
    double sigma;
    int seed;
    double accuracy;
  };
  for (const auto& p : std::vector<Point>{{"learned", 0.2, 0, 0.9},
                                          {"learned", 0.2, 1, 0.8},
                                          {"learned", 2.0, 0, 0.3},
                                          {"learned", 2.0, 1, 0.5},
                                          {"sinusoidal_2d", 0.2, 0, 0.95}}) {
    test::FakeRun run;
    run.pe_type = p.type;
    run.sigma = p.sigma;
    run.seed = p.seed;
    run.d_model = 4;
    run.pe_per_eval = {coords};
    run.human_accuracy = {p.accuracy};
    test::write_run(dir.path() / "sweep" / (p.type + std::to_string(p.sigma) + "_" + std::to_string(p.seed)), run);
  }
  const auto report = analysis::analyze_all({dir.path() / "sweep"}, dir.path() / "out", {}, false);
  CHECK(report.runs == 5);

  const std::string csv = read_text(dir.path() / "out" / "summary.csv");
  CHECK(cell(csv, "learned normal(0.2)", "runs") == "2");
  CHECK(std::stod(cell(csv, "learned normal(0.2)", "human_accuracy_mean")) == Approx(0.85));
  CHECK(std::stod(cell(csv, "learned normal(0.2)", "human_accuracy_sd")) == Approx(0.0707106781));
  CHECK(std::stod(cell(csv, "learned normal(2)", "human_accuracy_mean")) == Approx(0.4));
  CHECK(std::stod(cell(csv, "learned normal(2)", "rsa_spearman_mean")) == Approx(1.0));
  CHECK(std::stod(cell(csv, "learned normal(2)", "rsa_spearman_sd")) == Approx(0.0).margin(1e-12));
  // A PE without an init scale is one group whatever its config's sigma, shown without one.
  CHECK(cell(csv, "sinusoidal_2d", "sigma") == "");
  CHECK(cell(csv, "sinusoidal_2d", "runs") == "1");

  const std::string runs = read_text(dir.path() / "out" / "runs.csv");
  CHECK(std::count(runs.begin(), runs.end(), '\n') == 6);
  const std::string md = read_text(dir.path() / "out" / "summary.md");
  CHECK(md.find("| learned normal(0.2) | 2 | 85.0 ± 7.1 |") != std::string::npos);
}

TEST_CASE("The paper's correlation across sigma: Spearman over runs, with its exact p and its untrained control") {
  test::TempDir dir;
  // Three learned runs whose PE is the grid with more and more of one fixed noise pattern, and whose accuracy
  // falls as the noise grows: RSA falls with accuracy (rho = +1), the disparity to the oracle rises (rho = -1).
  const std::string csv = correlations_across_sigma(dir, [](test::FakeRun& run, int g) {
    run.human_accuracy = {std::vector<double>{0.95, 0.6, 0.3}[static_cast<std::size_t>(g)]};
  });
  INFO(csv);
  CHECK(cell(csv, "rsa_spearman,human_accuracy,,", "spearman") == "1");
  CHECK(cell(csv, "rsa_spearman,human_accuracy,,", "runs") == "3");
  // 3 runs: 6 pairings, of which 1 as high and 1 as low: two-sided exact p = 2 x 1/6.
  CHECK(std::stod(cell(csv, "rsa_spearman,human_accuracy,,", "p_value")) == Approx(1.0 / 3));
  CHECK(cell(csv, "rsa_spearman,human_accuracy,,", "exact") == "true");
  CHECK(cell(csv, "procrustes_oracle_disparity,human_accuracy,,", "spearman") == "-1");
  // The raw residual's untrained controls stand beside it: a random PE of the same norm, and (no epoch 0 here) no
  // epoch-0 row.
  CHECK(cell(csv, "control_procrustes_oracle_residual,human_accuracy,procrustes_oracle_residual,", "runs") == "3");
  CHECK(cell(csv, "init_procrustes_oracle_residual,human_accuracy,", "runs") == "<absent>");
  // An independent fresh draw of each run's sigma: its raw residual grows with sigma as accuracy falls, so the
  // paper's correlation comes out of the draw alone here.
  CHECK(cell(csv, "draw_procrustes_oracle_residual,human_accuracy,procrustes_oracle_residual,", "spearman") == "-1");
  const std::string md = read_text(dir.path() / "out" / "summary.md");
  CHECK(md.find("| procrustes_oracle_disparity | human_accuracy | 3 | -1.000 [") != std::string::npos);
  CHECK(md.find("computed over runs, not group means") != std::string::npos);
}

TEST_CASE("For masked regression the correlation across sigma is with held-out MSE") {
  test::TempDir dir;
  // As above, but the groups' test MSE rises with the noise in their PE: RSA falls as MSE rises (rho = -1).
  const std::string csv = correlations_across_sigma(dir, [](test::FakeRun& run, int g) {
    run.test_mse = {std::vector<double>{0.2, 0.4, 0.9}[static_cast<std::size_t>(g)]};
  });
  INFO(csv);
  CHECK(cell(csv, "rsa_spearman,test_mse,,", "spearman") == "-1");
  CHECK(cell(csv, "procrustes_oracle_disparity,test_mse,,", "spearman") == "1");
  // pe.h5 has no epoch-0 PE here, so there is no displacement: no row claims a correlation of it.
  CHECK(cell(csv, "disp_rsa_spearman,test_mse,", "runs") == "<absent>");
  CHECK(read_text(dir.path() / "out" / "summary.md").find("with held-out MSE") != std::string::npos);
}

namespace {

// Two groups (sigma 0.2 and 2) of five seeds whose human accuracy differs by 0.5 + a seed's own amount, analysed
// together; the text of comparisons.csv.
std::string two_groups(const test::TempDir& dir, const std::string& draw) {
  for (double sigma : {0.2, 2.0})
    for (int seed = 0; seed < 5; ++seed) {
      test::FakeRun run = noisy_grid_run(sigma);
      run.seed = seed;
      run.draw = draw;
      run.human_accuracy = {(sigma < 1 ? 0.9 : 0.4) + 0.01 * seed * (sigma < 1 ? 1 : 2)};
      test::write_run(dir.path() / "sweep" / ("s" + std::to_string(sigma) + "_" + std::to_string(seed)), run);
    }
  analysis::analyze_all({dir.path() / "sweep"}, dir.path() / "out", {}, false);
  return read_text(dir.path() / "out" / "comparisons.csv");
}

}  // namespace

TEST_CASE("Groups that share their PE draws are compared pair by pair, with an exact sign-flip test and Holm") {
  test::TempDir dir;
  const std::string csv = two_groups(dir, "");  // seed i of each sigma shares draw i
  INFO(csv);
  const std::string key = "human_accuracy,learned normal(0.2),learned normal(2),";
  CHECK(cell(csv, key, "design") == "paired");
  CHECK(cell(csv, key, "n_a") == "5");
  // Differences 2 x (-0.5 + 0.01 i) - ...: all five negative, so 2 of 32 sign patterns are as extreme.
  CHECK(std::stod(cell(csv, key, "p_value")) == Approx(0.0625));
  CHECK(std::stod(cell(csv, key, "difference")) == Approx(-0.48));
  CHECK(std::stod(cell(csv, key, "ci_high")) < -0.4);
  CHECK(cell(csv, key, "test") == "exact sign-flip");
  // One comparison per metric: Holm over a family of one leaves p as it is.
  CHECK(cell(csv, key, "p_holm") == cell(csv, key, "p_value"));
  CHECK(cell(csv, key, "family") == "1");
  const std::string md = read_text(dir.path() / "out" / "summary.md");
  CHECK(md.find("**human_accuracy** (percentage points), Holm over its 1 comparison:") != std::string::npos);
  CHECK(md.find("| learned normal(0.2) | learned normal(2) | -48.0 [") != std::string::npos);
}

TEST_CASE("Groups whose PEs drew independently are compared as independent samples") {
  test::TempDir dir;
  const std::string csv = two_groups(dir, "run");  // model.pe.draw: run, so no two runs share a draw
  INFO(csv);
  const std::string key = "human_accuracy,learned normal(0.2),learned normal(2),";
  CHECK(cell(csv, key, "design") == "independent");
  CHECK(cell(csv, key, "test") == "exact label permutation");
  // The five 0.2 runs all above the five 2.0 runs: 2 of C(10, 5) = 252 splits as extreme.
  CHECK(std::stod(cell(csv, key, "p_value")) == Approx(2.0 / 252));
}

TEST_CASE("Onsets are censored data: a run without one counts as censored at its last evaluation") {
  test::TempDir dir;
  // Two runs of one group: one PE turns from noise into the grid at epoch 10, the other stays noise.
  Eigen::MatrixXd grid = Eigen::MatrixXd::Zero(16, 4);
  grid.leftCols(2) = test::grid4();
  Eigen::MatrixXd noise(16, 4);
  for (int i = 0; i < 16; ++i)
    for (int j = 0; j < 4; ++j) noise(i, j) = std::sin(3.1 * i * i + 1.3 * j);
  for (int seed = 0; seed < 2; ++seed) {
    test::FakeRun run;
    run.seed = seed;
    run.d_model = 4;
    run.from_epoch_0 = true;
    run.pe_per_eval = {noise, seed == 0 ? grid : noise, seed == 0 ? grid : noise};
    run.human_accuracy = {0.5, 0.6};
    test::write_run(dir.path() / "sweep" / ("r" + std::to_string(seed)), run);
  }
  analysis::analyze_all({dir.path() / "sweep"}, dir.path() / "out", {}, false);
  const std::string csv = read_text(dir.path() / "out" / "onsets.csv");
  INFO(csv);
  // Kaplan-Meier: 1 of 2 at risk has its onset at epoch 10; the other is censored at 20, the last evaluation.
  CHECK(cell(csv, "rsa,learned normal(0.2),10,", "at_risk") == "2");
  CHECK(cell(csv, "rsa,learned normal(0.2),10,", "fraction_with_onset") == "0.5");
  CHECK(cell(csv, "rsa,learned normal(0.2),20,", "censored") == "1");
  CHECK(cell(csv, "rsa,learned normal(0.2),20,", "fraction_with_onset") == "0.5");
  const std::string md = read_text(dir.path() / "out" / "summary.md");
  CHECK(md.find("| rsa | learned normal(0.2) | 2 | 1 | 0.50 [") != std::string::npos);
}

TEST_CASE("comparisons: one_setting compares only groups that differ in one setting, and Holm holds over those") {
  // A 2 x 2 grid: PE type (learned, random_fixed) x sigma (0.2, 2), three seeds a cell, independent draws.
  auto analysed = [](const test::TempDir& dir, analysis::Comparisons comparisons) {
    for (const char* type : {"learned", "random_fixed"})
      for (double sigma : {0.2, 2.0})
        for (int seed = 0; seed < 3; ++seed) {
          test::FakeRun run = noisy_grid_run(sigma);
          run.pe_type = type;
          run.seed = seed;
          run.draw = "run";
          run.human_accuracy = {(sigma < 1 ? 0.9 : 0.4) - 0.01 * seed};
          test::write_run(
              dir.path() / "sweep" / (std::string(type) + std::to_string(sigma) + "_" + std::to_string(seed)), run);
        }
    analysis::AnalyzeOptions o;
    o.comparisons = comparisons;
    analysis::analyze_all({dir.path() / "sweep"}, dir.path() / "out", o, false);
    return read_text(dir.path() / "out" / "comparisons.csv");
  };
  test::TempDir all_dir, planned_dir;
  const std::string all = analysed(all_dir, analysis::Comparisons::all),
                    planned = analysed(planned_dir, analysis::Comparisons::one_setting);
  INFO(all);
  INFO(planned);
  // Every pair of the 4 groups against the 4 that differ in type alone or in sigma alone.
  CHECK(cell(all, "human_accuracy,learned normal(0.2),learned normal(2),", "family") == "6");
  CHECK(cell(planned, "human_accuracy,learned normal(0.2),learned normal(2),", "family") == "4");
  CHECK(cell(planned, "human_accuracy,learned normal(0.2),random_fixed normal(0.2),", "family") == "4");
  CHECK(cell(planned, "human_accuracy,learned normal(0.2),random_fixed normal(2),", "family") == "<absent>");
  CHECK(cell(all, "human_accuracy,learned normal(0.2),random_fixed normal(2),", "family") == "6");
  // The smaller family adjusts less: the same p, a smaller Holm p.
  const std::string key = "human_accuracy,learned normal(0.2),learned normal(2),";
  CHECK(cell(planned, key, "p_value") == cell(all, key, "p_value"));
  CHECK(std::stod(cell(planned, key, "p_holm")) < std::stod(cell(all, key, "p_holm")));
  CHECK(read_text(planned_dir.path() / "out" / "summary.md").find("differ in exactly one setting") !=
        std::string::npos);
}

// A sweep that trains some runs to classify and others to fill in masked tokens (Experiment 4's): each task's
// metric is compared among the groups that have it; before, the accuracy alone was, and the MSE never.
TEST_CASE("A sweep of two tasks compares each task's metric among the groups that have it") {
  test::TempDir dir;
  for (double sigma : {0.2, 2.0, 0.5, 1.0})
    for (int seed = 0; seed < 5; ++seed) {
      test::FakeRun run = noisy_grid_run(sigma);
      run.seed = seed;
      run.draw = "run";
      if (sigma == 0.2 || sigma == 2.0)
        run.human_accuracy = {(sigma < 1 ? 0.9 : 0.4) + 0.01 * seed};
      else
        run.test_mse = {(sigma < 0.8 ? 0.1 : 0.3) + 0.001 * seed};
      test::write_run(dir.path() / "sweep" / ("s" + std::to_string(sigma) + "_" + std::to_string(seed)), run);
    }
  analysis::analyze_all({dir.path() / "sweep"}, dir.path() / "out", {}, false);
  const std::string csv = read_text(dir.path() / "out" / "comparisons.csv");
  INFO(csv);
  CHECK(std::stod(cell(csv, "human_accuracy,learned normal(0.2),learned normal(2),", "difference")) == Approx(-0.5));
  CHECK(std::stod(cell(csv, "test_mse,learned normal(0.5),learned normal(1),", "difference")) == Approx(0.2));
  CHECK(cell(csv, "test_mse,learned normal(0.2),learned normal(2),", "n_a") == "<absent>");
}

// Does sigma decide it? Four sigmas, five independent draws each, accuracy falling with sigma beside seed noise as
// large as a sigma step: each pair of neighbouring sigmas is a weak comparison, the trend over the 20 runs is not.
namespace {

void four_sigmas(const test::TempDir& dir, const std::string& draw) {
  for (double sigma : {0.2, 0.5, 1.0, 2.0})
    for (int seed = 0; seed < 5; ++seed) {
      test::FakeRun run = noisy_grid_run(sigma);
      run.seed = seed;
      run.draw = draw;
      run.human_accuracy = {0.9 - 0.1 * sigma + 0.03 * ((seed * 7) % 5)};
      test::write_run(dir.path() / "sweep" / ("s" + std::to_string(sigma) + "_" + std::to_string(seed)), run);
    }
  analysis::analyze_all({dir.path() / "sweep"}, dir.path() / "out", {}, false);
}

}  // namespace

TEST_CASE("A setting swept through three or more numbers gets one trend test per metric, over runs, with Holm") {
  test::TempDir dir;
  four_sigmas(dir, "run");
  const std::string csv = read_text(dir.path() / "out" / "trends.csv");
  INFO(csv);
  const std::string key = "model.pe.init.std,all runs,human_accuracy,";
  CHECK(cell(csv, key, "runs") == "20");
  CHECK(cell(csv, key, "numbers") == "4");
  CHECK(std::stod(cell(csv, key, "spearman")) < -0.6);
  CHECK(cell(csv, key, "test") == "Monte Carlo permutation (10000)");  // independent draws: no strata
  CHECK(std::stod(cell(csv, key, "p_value")) < 0.01);
  CHECK(std::stod(cell(csv, key, "p_holm")) >= std::stod(cell(csv, key, "p_value")));
  CHECK(cell(csv, key, "reading") == "falls with model.pe.init.std");
  // RSA falls with sigma too (noisy_grid_run: more sigma, less grid), in the same Holm family.
  CHECK(cell(csv, "model.pe.init.std,all runs,rsa_spearman,", "reading") == "falls with model.pe.init.std");
  CHECK(cell(csv, key, "family_size") == "2");
  CHECK(read_text(dir.path() / "out" / "summary.md").find("## Trends along a swept number") != std::string::npos);

  // Seed i's runs share draw i: the trend is tested within the draws (seed noise is the same within each, so every
  // draw falls with sigma), not across them.
  test::TempDir shared;
  four_sigmas(shared, "");
  const std::string paired = read_text(shared.path() / "out" / "trends.csv");
  INFO(paired);
  CHECK(cell(paired, key, "test") == "Monte Carlo permutation (10000) within 5 shared draws");
  CHECK(std::stod(cell(paired, key, "spearman")) == Approx(-1.0));
  CHECK(std::stod(cell(paired, key, "p_value")) < 0.001);

  // Two sigmas are a comparison, not a trend.
  test::TempDir two;
  two_groups(two, "run");
  CHECK(read_text(two.path() / "out" / "trends.csv").find("human_accuracy") == std::string::npos);
}
