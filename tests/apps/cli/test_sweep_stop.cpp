// `loci sweep stop DIR`: the sweep running there ends as with Ctrl-C, its runs resumable; nothing else is signalled.
#include <catch2/catch.hpp>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>

#include "tests/support/run_command.hpp"
#include "tests/support/temp_files.hpp"

using loci::test::refusal;
using loci::test::run_loci;
namespace fs = std::filesystem;

namespace {

bool claim_written(const fs::path& sweep) {
  std::ifstream in(sweep / ".loci-sweep-lock");
  std::string line;
  return std::getline(in, line) && line.rfind("pid ", 0) == 0;
}

}  // namespace

TEST_CASE("loci sweep stop ends the sweep running in a folder, and says so when none is") {
  loci::test::TempDir dir;
  const std::string data = (dir.path() / "data").string(), sweep = (dir.path() / "sweep").string();
  REQUIRE(run_loci("generate -q " + std::string(LOCI_SOURCE_DIR) + "/configs/lst.yaml out=" + data +
                   " splits.train=64 splits.test=16")
              .exit_code == 0);
  CHECK_THAT(refusal(run_loci("sweep stop " + sweep)), Catch::Contains("no such folder"));
  fs::create_directories(sweep);
  CHECK_THAT(refusal(run_loci("sweep stop " + sweep)), Catch::Contains("no sweep is running there"));

  // A sweep long enough to be caught running: two runs of many epochs, one at a time.
  const pid_t pid = fork();
  if (pid == 0) {
    const std::string cfg = std::string(LOCI_SOURCE_DIR) + "/configs/lst_train.yaml";
    execl(LOCI_BIN, LOCI_BIN, "train", "-q", cfg.c_str(), "-m", "seed=0,1", ("data=" + data).c_str(),
          ("out=" + sweep).c_str(), "train.epochs=100000", "jobs=1", static_cast<char*>(nullptr));
    _exit(127);
  }
  for (int i = 0; i < 600 && !claim_written(sweep); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  REQUIRE(claim_written(sweep));
  const auto stopped = run_loci("sweep stop " + sweep);
  INFO(stopped.output);
  CHECK(stopped.exit_code == 0);
  CHECK_THAT(stopped.output, Catch::Contains("stopped the sweep of pid " + std::to_string(pid)));
  // The sweep has ended (stop waits for its claim to go), so it is reaped at once, not after a timeout.
  int status = 0;
  pid_t reaped = 0;
  for (int i = 0; i < 100 && reaped == 0; ++i) {
    reaped = waitpid(pid, &status, WNOHANG);
    if (reaped == 0) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  if (reaped == 0) kill(pid, SIGKILL), waitpid(pid, &status, 0);
  CHECK(reaped == pid);
  CHECK_THAT(refusal(run_loci("sweep stop " + sweep)), Catch::Contains("no sweep is running there"));
  const auto after = run_loci("sweep status " + sweep);
  CHECK_THAT(after.output, !Catch::Contains("running"));
}
