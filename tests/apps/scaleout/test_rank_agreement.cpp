// Ranks of one data-parallel run must train the same run: started with other settings they stop before the first
// step, every rank with one line naming the keys; and rank 0's evaluation, however long, is waited out under its
// own bound (train.dist_eval_timeout), not the liveness timeout.
#include <catch2/catch.hpp>

#include "tests/apps/scaleout/ranks.hpp"
#include "tests/apps/scaleout/train_fixture.hpp"
#include "tests/support/run_command.hpp"
#include "tests/support/temp_files.hpp"

namespace fs = std::filesystem;
using loci::test::slurp;
using namespace loci::test::scaleout;

TEST_CASE("ranks started with other settings stop at once, each with one line naming the keys") {
  struct Case {
    const char* override_;
    const char* key;
  };
  for (const Case& c : {Case{"train.lr=0.01", "train.lr (0.003 -> 0.01)"}, Case{"seed=1", "seed (0 -> 1)"},
                        Case{"train.batch_size=8", "train.batch_size (16 -> 8)"}}) {
    INFO(c.override_);
    loci::test::TempDir dir;
    const fs::path run = dir.path() / "run";
    const std::string args = "train -q " + train_config(dir, lst(), "epochs: 50, eval_every: 5, batch_size: 16") +
                             " seed=0 out=" + run.string();
    const int port = loci::test::free_port();
    const auto r0 = loci::test::start_rank(0, 2, port, args, dir.path() / "rank0.log");
    const auto r1 = loci::test::start_rank(1, 2, port, args + " " + c.override_, dir.path() / "rank1.log");
    const int code0 = loci::test::wait_rank(r0, std::chrono::seconds(60));
    const int code1 = loci::test::wait_rank(r1, std::chrono::seconds(60));
    for (const auto* r : {&r0, &r1}) {
      const std::string log = r->output();
      INFO(log);
      CHECK(std::count(log.begin(), log.end(), '\n') == 1);
      CHECK_THAT(log, Catch::StartsWith("loci: error: rank ") &&
                          Catch::Contains("ranks 0 and 1 were started with other settings") && Catch::Contains(c.key));
    }
    CHECK(code0 == 1);
    CHECK(code1 == 1);
    CHECK_FALSE(fs::exists(run / "metrics.csv"));  // not one step trained on a mix of both
  }
}

TEST_CASE("a rank 0 evaluation longer than dist_timeout does not end a healthy run") {
  loci::test::TempDir dir;
  // 12 000 test puzzles one at a time take rank 0 several seconds while rank 1 waits; dist_timeout is 2 s.
  const std::string cfg =
      dir.write("train.yaml", "trainer: torch_trainer\ndata: " + lst_long_test().string() +
                                  "\nout: unused\nmodel: {d_model: 32, blocks: 2}\ntask: {eval_splits: [test]}\n"
                                  "train: {threads: 1, progress: false, epochs: 2, eval_every: 1, batch_size: 32, "
                                  "eval_batch_size: 1, dist_timeout: 2}\n");
  const fs::path run = dir.path() / "run";
  const auto codes = loci::test::run_ranks(2, "train -q " + cfg + " out=" + run.string(), dir.path());
  INFO(slurp(dir.path() / "rank0.log") << slurp(dir.path() / "rank1.log"));
  REQUIRE(codes == std::vector<int>{0, 0});
  CHECK(slurp(run / "summary.json").find("\"status\": \"finished\"") != std::string::npos);

  // The liveness bound still holds for that wait: dist_eval_timeout below the evaluation's length ends it.
  const fs::path short_wait = dir.path() / "short";
  const auto failed =
      loci::test::run_ranks(2, "train -q " + cfg + " train.dist_eval_timeout=1 out=" + short_wait.string(), dir.path());
  const std::string log1 = slurp(dir.path() / "rank1.log");
  INFO(slurp(dir.path() / "rank0.log") << log1);
  CHECK(failed[1] == 1);
  CHECK_THAT(log1, Catch::Contains("rank 1 of 2: rank 0's stop decision at step") &&
                       Catch::Contains("did not come within 1 s"));
}
