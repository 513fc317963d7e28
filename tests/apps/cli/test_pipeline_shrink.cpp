// A shipped pipeline cut down from anywhere: included from another folder, its grid replaced on the command line.
#include <catch2/catch.hpp>

#include <string>

#include "tests/support/run_command.hpp"
#include "tests/support/temp_files.hpp"

using loci::test::refusal;
using loci::test::run_loci;

namespace {
const std::string kPaper = std::string(LOCI_SOURCE_DIR) + "/configs/paper/";
}

TEST_CASE("a paper pipeline included from another folder resolves its stages' includes against its own folder") {
  loci::test::TempDir dir;
  // exp2_network_quick.yaml's stages include ../network_ou.yaml: relative to configs/paper, not to mine/.
  const auto mine = dir.write("mine/small.yaml", "include: " + kPaper + "exp2_network_quick.yaml\nout: small\n");
  const auto r = run_loci("config show " + mine, "cd " + dir.path().string() + " &&");
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  CHECK_THAT(r.output, Catch::Contains("generator: network_dynamics") && Catch::Contains("trainer: torch_trainer"));
  // The same from a pipeline that includes the quickstart, itself including lst.yaml beside it.
  const auto qs = dir.write("mine/qs.yaml", "include: " + std::string(LOCI_SOURCE_DIR) + "/configs/quickstart.yaml\n");
  CHECK(run_loci("config show " + qs).exit_code == 0);
}

TEST_CASE("train.sweep on the command line replaces a pipeline's grid, and a one-point sweep's run is named after it") {
  loci::test::TempDir dir;
  const std::string in_dir = "cd " + dir.path().string() + " &&";
  const auto r = run_loci(
      "run " + kPaper + "exp1_lst_quick.yaml out=cut 'train.sweep=[\"model.pe.init.std=0.2\"]' --dry-run", in_dir);
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  // One run, named after its point rather than "run"; none of the shipped grid's other points.
  CHECK_THAT(r.output, Catch::Contains("model.pe.init.std=0.2"));
  CHECK_THAT(r.output, !Catch::Contains("std=2.0") && !Catch::Contains("/run:") && !Catch::Contains("/run "));
  // YAML splits an unquoted [seed=0,1] at its comma: the message says how to quote.
  CHECK_THAT(refusal(run_loci("config show " + kPaper + "exp1_lst_quick.yaml 'train.sweep=[seed=0,1]'", in_dir)),
             Catch::Contains("train.sweep=[seed=0,1]") && Catch::Contains("quote each entry"));
}

TEST_CASE("a swept generate stage names a dataset folder per point, and refuses an out its data= axis cannot carry") {
  loci::test::TempDir dir;
  const std::string in_dir = "cd " + dir.path().string() + " &&";
  const auto r = run_loci("run " + kPaper + "exp2_network_datasets.yaml out=p --dry-run", in_dir);
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  CHECK_THAT(r.output, Catch::Contains("p/data/seed=0: new") && Catch::Contains("p/data/seed=2: new"));
  CHECK_THAT(r.output, Catch::Contains("[train] 54 runs"));
  // Sweep values are split at commas: a dataset path holding one could not reach its runs intact.
  CHECK_THAT(refusal(run_loci("config show " + kPaper + "exp2_network_datasets.yaml out=a,b", in_dir)),
             Catch::Contains("generate.out 'a,b/data'") && Catch::Contains("holds ','"));
}
