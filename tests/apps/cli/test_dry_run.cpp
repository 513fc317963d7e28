// `loci run --dry-run` says what each stage and run would do, from the same records a real start reads, and
// writes nothing: before anything exists, after a finished pipeline, and for settings that would extend or be
// refused.
#include <catch2/catch.hpp>

#include <filesystem>

#include "tests/support/run_command.hpp"
#include "tests/support/temp_files.hpp"

using loci::test::run_loci;
namespace fs = std::filesystem;

namespace {

std::string files_below(const fs::path& root) {
  std::string all;
  if (!fs::exists(root)) return all;
  for (const auto& e : fs::recursive_directory_iterator(root)) all += e.path().string() + "\n";
  return all;
}

}  // namespace

TEST_CASE("loci run --dry-run names every stage and run, made or kept, and why, and writes nothing") {
  loci::test::TempDir dir;
  const fs::path out = dir.path() / "qs";
  const std::string pipeline = "run " + std::string(LOCI_SOURCE_DIR) + "/configs/quickstart.yaml out=" + out.string() +
                               " generate.splits.train=64 generate.splits.test=16 train.train.epochs=1 "
                               "train.train.eval_every=1 train.train.robustness_noise=[]";
  const std::string run1 = (out / "runs" / "model.pe.init.std=0.2").string();

  auto fresh = run_loci(pipeline + " --dry-run");
  INFO(fresh.output);
  REQUIRE(fresh.exit_code == 0);
  CHECK(fresh.output.find("[generate] " + (out / "data").string() + ": new (train 64, test 16 samples)") !=
        std::string::npos);
  CHECK(fresh.output.find("[train] 2 runs under") != std::string::npos);
  CHECK(fresh.output.find("[1/2] " + run1 + ": new (its data") != std::string::npos);
  CHECK(fresh.output.find("[analyze] 0 runs there now") != std::string::npos);
  CHECK(fresh.output.find("[report] ") != std::string::npos);
  CHECK(!fs::exists(out));  // nothing written

  REQUIRE(run_loci(pipeline + " -q").exit_code == 0);
  const std::string before = files_below(out);
  auto done = run_loci(pipeline + " --dry-run");
  INFO(done.output);
  REQUIRE(done.exit_code == 0);
  CHECK(done.output.find(": complete; kept (") != std::string::npos);
  CHECK(done.output.find("[1/2] " + run1 + ": finished; kept") != std::string::npos);
  CHECK(done.output.find("[analyze] 2 runs there now: 2 analyses current") != std::string::npos);
  CHECK(done.output.find("kept while the summary stays as it is") != std::string::npos);
  CHECK(files_below(out) == before);

  const auto longer = run_loci(pipeline + " --dry-run train.train.epochs=2");
  CHECK(longer.output.find(run1 + ": finished at epoch 1; continues to epoch 2") != std::string::npos);
  CHECK(longer.exit_code == 0);
  // A refusal is said for every run, and then the command fails as the real one would.
  const auto other = run_loci(pipeline + " --dry-run train.train.lr=0.01");
  CHECK(other.output.find("refused: " + run1 + ": holds a run made with other settings: train.lr") !=
        std::string::npos);
  CHECK(other.output.find("[2/2] refused: ") != std::string::npos);
  CHECK(other.exit_code == 1);
  CHECK(other.output.find("--dry-run: 2 stages or runs would be refused") != std::string::npos);
  const auto data = run_loci(pipeline + " --dry-run generate.seed=5");
  CHECK(data.output.find("[generate] " + (out / "data").string() +
                         ": refused: it holds a dataset made with other settings") != std::string::npos);
  CHECK(data.exit_code == 1);
  CHECK_THAT(loci::test::refusal(
                 run_loci("train --dry-run " + (out / "train.yaml").string() + " out=" + run1 + " train.lr=0.01")),
             Catch::Contains("--dry-run: the run would be refused"));
  CHECK(files_below(out) == before);
}
