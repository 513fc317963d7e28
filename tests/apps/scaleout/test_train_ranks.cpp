// `loci train` as two ranks on 127.0.0.1 (c10d: TCPStore + ProcessGroupGloo): the same global batch gives the loss
// curve one process gives; a rank killed mid-run stops the other with one line, and --resume then completes.
#include <catch2/catch.hpp>

#include <cmath>
#include <map>
#include <sstream>

#include "tests/apps/scaleout/ranks.hpp"
#include "tests/apps/scaleout/train_fixture.hpp"
#include "tests/support/run_command.hpp"
#include "tests/support/temp_files.hpp"

namespace fs = std::filesystem;
using loci::test::run_loci;
using loci::test::slurp;

using namespace loci::test::scaleout;

TEST_CASE("two ranks give the loss curve of one process with the same global batch") {
  struct Case {
    const char* name;
    const fs::path& (*data)();
    const char* metric;
  };
  for (const Case& c : {Case{"classification", lst, "loss"}, Case{"masked regression", network, "mse"}}) {
    INFO(c.name);
    loci::test::TempDir dir;
    // Global batches of 19, evaluated after each of 8 epochs. LST's 96 samples end an epoch with a batch of one,
    // of which rank 0's part is empty: that rank still takes the step, with zero gradients.
    // One evaluation per epoch: masked regression's extra mask ratios are left out (train.eval_mask_ratios).
    const std::string cfg =
        train_config(dir, c.data(), "epochs: 8, eval_every: 1, batch_size: 19, eval_mask_ratios: []",
                     "task: {eval_splits: [train]}\n");
    const auto one = run_loci("train -q " + cfg + " out=" + (dir.path() / "one").string());
    INFO(one.output);
    REQUIRE(one.exit_code == 0);
    const auto codes =
        loci::test::run_ranks(2, "train -q " + cfg + " out=" + (dir.path() / "two").string(), dir.path());
    INFO(slurp(dir.path() / "rank0.log") << slurp(dir.path() / "rank1.log"));
    REQUIRE(codes == std::vector<int>{0, 0});

    const auto a = column(dir.path() / "one/metrics.csv", c.metric),
               b = column(dir.path() / "two/metrics.csv", c.metric);
    REQUIRE(a.size() == 8);
    REQUIRE(a.size() == b.size());
    CHECK(a.back() < 0.99 * a.front());  // it learns: the curve is not flat
    for (std::size_t i = 0; i < a.size(); ++i) {
      INFO("row " << i << ": " << a[i] << " vs " << b[i]);
      CHECK(b[i] == Approx(a[i]).epsilon(1e-4).margin(1e-6));
    }
    CHECK(slurp(dir.path() / "two/summary.json").find("\"status\": \"finished\"") != std::string::npos);
  }
}

TEST_CASE("a rank killed mid-run stops the other with one clear line and --resume completes the run") {
  loci::test::TempDir dir;
  const fs::path run = dir.path() / "run";
  const std::string cfg = train_config(dir, lst(), "epochs: 300, eval_every: 2, batch_size: 16");
  const std::string args = "train -q " + cfg + " out=" + run.string();
  const int port = loci::test::free_port();
  const auto r0 = loci::test::start_rank(0, 2, port, args, dir.path() / "rank0.log");
  const auto r1 = loci::test::start_rank(1, 2, port, args, dir.path() / "rank1.log");
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
  while (!fs::exists(run / "checkpoints/last.pt") && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  REQUIRE(fs::exists(run / "checkpoints/last.pt"));
  ::kill(r1.pid, SIGKILL);
  CHECK(loci::test::wait_rank(r1) == 128 + SIGKILL);
  // Well within dist_timeout: the dead rank's closed connections end the survivor's all-reduce at once.
  const auto t0 = std::chrono::steady_clock::now();
  const int code = loci::test::wait_rank(r0, std::chrono::seconds(90));
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const std::string log = r0.output();
  INFO(log);
  REQUIRE_FALSE(fs::exists(run / "summary.json"));
  CHECK(code == 1);
  CHECK(seconds < 30);
  CHECK_THAT(log, Catch::Contains("loci: error: rank 0 of 2: ") && Catch::Contains("another rank stopped"));
  CHECK(std::count(log.begin(), log.end(), '\n') == 1);  // that one line and nothing else

  const auto codes = loci::test::run_ranks(2, args + " --resume", dir.path());
  INFO(slurp(dir.path() / "rank0.log") << slurp(dir.path() / "rank1.log"));
  REQUIRE(codes == std::vector<int>{0, 0});
  const std::string summary = slurp(run / "summary.json");
  CHECK(summary.find("\"status\": \"finished\"") != std::string::npos);
  CHECK(summary.find("\"steps\": 1800") != std::string::npos);  // 96 / 16 = 6 steps x 300 epochs
}

TEST_CASE("torchrun itself launches the ranks and its agent serves the rendezvous") {
  loci::test::TempDir dir;
  const std::string cfg = train_config(dir, lst(), "epochs: 2, eval_every: 2, batch_size: 32");
  // Debian's torchrun (PyTorch 1.13 on Python 3.11) fails on its default `--redirects 0 --tee 0`: zero-valued enum
  // flags no longer iterate. Any non-zero choice avoids it.
  const std::string cmd = "/usr/bin/torchrun --nnodes 1 --nproc_per_node 2 --master_port " +
                          std::to_string(loci::test::free_port()) + " --redirects 2 --tee 2 --log_dir " +
                          (dir.path() / "logs").string() + " --no_python " + LOCI_BIN + " train -q " + cfg +
                          " out=" + (dir.path() / "run").string() + " 2>&1";
  std::string output;
  FILE* pipe = popen(cmd.c_str(), "r");
  char buf[4096];
  while (pipe && std::fgets(buf, sizeof buf, pipe)) output += buf;
  const int status = pipe ? pclose(pipe) : -1;
  INFO(output);
  CHECK(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 0);
  CHECK(slurp(dir.path() / "run/summary.json").find("\"steps\": 6") != std::string::npos);  // 96 / 32 x 2 epochs
}
