// The summary across runs: groups are runs differing only in seed, numbers are mean and sample sd over the group.
#include <catch2/catch.hpp>

#include <cmath>
#include <fstream>
#include <sstream>

#include "tests/support/temp_files.hpp"
#include "apps/analysis/analyze_all.hpp"
#include "tests/apps/analysis/run_folder_fixture.hpp"

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

TEST_CASE("The paper's correlation across sigma: Spearman of each statistic's group mean with accuracy") {
  test::TempDir dir;
  // Three learned groups whose PE is the grid with more and more of one fixed noise pattern, and whose accuracy
  // falls as the noise grows: RSA falls with accuracy (rho = +1), the disparity to the oracle rises (rho = -1).
  const std::string csv = correlations_across_sigma(dir, [](test::FakeRun& run, int g) {
    run.human_accuracy = {std::vector<double>{0.95, 0.6, 0.3}[static_cast<std::size_t>(g)]};
  });
  INFO(csv);
  CHECK(csv.find("rsa_spearman,human_accuracy,3,1\n") != std::string::npos);
  CHECK(csv.find("procrustes_oracle_disparity,human_accuracy,3,-1\n") != std::string::npos);
  // The norm-only control follows the PE's norm, which grows with the noise here.
  CHECK(csv.find("control_procrustes_oracle_residual,human_accuracy,3,") != std::string::npos);
  const std::string md = read_text(dir.path() / "out" / "summary.md");
  CHECK(md.find("| procrustes_oracle_disparity | -1 |") != std::string::npos);
}

TEST_CASE("For masked regression the correlation across sigma is with held-out MSE") {
  test::TempDir dir;
  // As above, but the groups' test MSE rises with the noise in their PE: RSA falls as MSE rises (rho = -1).
  const std::string csv = correlations_across_sigma(dir, [](test::FakeRun& run, int g) {
    run.test_mse = {std::vector<double>{0.2, 0.4, 0.9}[static_cast<std::size_t>(g)]};
  });
  INFO(csv);
  CHECK(csv.find("rsa_spearman,test_mse,3,-1\n") != std::string::npos);
  CHECK(csv.find("procrustes_oracle_disparity,test_mse,3,1\n") != std::string::npos);
  // pe.h5 has no epoch-0 PE here, so there is no displacement: its rows are undefined over 0 groups.
  CHECK(csv.find("disp_rsa_spearman,test_mse,0,\n") != std::string::npos);
  CHECK(read_text(dir.path() / "out" / "summary.md").find("with held-out MSE") != std::string::npos);
}
