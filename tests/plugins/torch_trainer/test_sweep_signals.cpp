// A sweep runs each point in a process of its own. Stopping the sweep (`kill <pid>`, a scheduler's SIGTERM, or
// SIGKILL) must stop those processes too: before, the parent ended and its runs went on training unseen.
#include <catch2/catch.hpp>

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "tests/plugins/torch_trainer/trainer_fixture.hpp"
#include "tests/support/processes.hpp"
#include "tests/support/temp_files.hpp"

namespace fs = std::filesystem;
using namespace std::chrono_literals;
using loci::test::children_of;
using loci::test::has_ended;

namespace {

// Whether process `pid` has a handler for SIGUSR1 (bit SIGUSR1 - 1 of SigCgt in /proc/PID/status).
bool catches_usr1(pid_t pid) {
  std::ifstream status("/proc/" + std::to_string(pid) + "/status");
  for (std::string line; std::getline(status, line);)
    if (line.rfind("SigCgt:", 0) == 0) return (std::stoull(line.substr(7), nullptr, 16) >> (SIGUSR1 - 1)) & 1u;
  return false;
}

// `loci ARGS...` in the background, its stdout and stderr into `log`; with `own_group`, in a process group of its
// own (as a shell's job), whose id is its pid.
pid_t start_loci(std::vector<std::string> args, const fs::path& log, bool own_group = false) {
  args.insert(args.begin(), LOCI_BIN);
  const pid_t pid = fork();
  if (pid == 0) {
    if (own_group) setpgid(0, 0);
    const int fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    dup2(fd, 1);
    dup2(fd, 2);
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    execv(argv[0], argv.data());
    _exit(127);
  }
  return pid;
}

// A two-run training sweep that would go on for ever.
pid_t start_sweep(const std::string& config, const fs::path& log) {
  return start_loci({"train", "-q", config, "-m", "seed=0,1", "jobs=2", "train.epochs=100000"}, log);
}

// Both runs training (each has written a checkpoint), and their two processes.
std::vector<pid_t> wait_for_two_runs(pid_t sweep, const fs::path& out, const char* a = "seed=0",
                                     const char* b = "seed=1") {
  const auto deadline = std::chrono::steady_clock::now() + 120s;
  while (std::chrono::steady_clock::now() < deadline) {
    if (fs::exists(out / a / "checkpoints/last.pt") && fs::exists(out / b / "checkpoints/last.pt")) break;
    std::this_thread::sleep_for(50ms);
  }
  return children_of(sweep);
}

// A two-run sweep of train_config(dir) writing to `log`, once both its runs are training; the test then stops it.
struct TrainingSweep {
  pid_t sweep;
  std::vector<pid_t> runs;
};

TrainingSweep two_runs_training(const loci::test::TempDir& dir, const fs::path& log) {
  TrainingSweep t{start_sweep(loci::test::train_config(dir), log), {}};
  REQUIRE(t.sweep > 0);
  t.runs = wait_for_two_runs(t.sweep, dir.path() / "run");
  REQUIRE(t.runs.size() == 2);
  return t;
}

}  // namespace

TEST_CASE("SIGTERM to a sweep stops its runs and waits for them, keeping their checkpoints", "[trainer][sweep]") {
  loci::test::TempDir dir;
  const fs::path log = dir.path() / "sweep.log";
  const TrainingSweep t = two_runs_training(dir, log);
  const pid_t sweep = t.sweep;
  const auto& runs = t.runs;

  ::kill(sweep, SIGTERM);
  int status = 0;
  REQUIRE(::waitpid(sweep, &status, 0) == sweep);
  CHECK(WIFSIGNALED(status));
  CHECK(WTERMSIG(status) == SIGTERM);
  // Waited for, not left behind: by the time the sweep has ended its runs have ended and been reaped.
  for (const pid_t run : runs) {
    CHECK(::kill(run, 0) == -1);
    CHECK(errno == ESRCH);
  }
  const std::string said = loci::test::slurp(log);
  CHECK_THAT(said, Catch::Contains("stopping 2 run(s)"));
  CHECK_THAT(said, Catch::Contains("stopped seed=0"));
  CHECK_THAT(said, !Catch::Contains("FAILED"));
  for (const char* run : {"seed=0", "seed=1"}) CHECK(fs::exists(dir.path() / "run" / run / "checkpoints/last.pt"));
}

TEST_CASE("a second sweep into a folder being swept is refused on its own stderr, not in the runs' logs",
          "[trainer][sweep]") {
  loci::test::TempDir dir;
  const fs::path log = dir.path() / "sweep.log";
  const TrainingSweep t = two_runs_training(dir, log);
  const auto second = loci::test::run_loci("train -q " + loci::test::train_config(dir) + " -m seed=0,1 jobs=2");
  CHECK(second.exit_code == 1);
  CHECK_THAT(second.output,
             Catch::Contains((dir.path() / "run").string()) && Catch::Contains("pid " + std::to_string(t.sweep)));
  ::kill(t.sweep, SIGTERM);
  int status = 0;
  REQUIRE(::waitpid(t.sweep, &status, 0) == t.sweep);
  for (const char* run : {"seed=0", "seed=1"}) {
    const std::string run_log = loci::test::slurp(dir.path() / "run" / run / "train.log");
    CHECK_THAT(run_log, !Catch::Contains("error"));
  }
}

TEST_CASE("a sweep killed outright (SIGKILL) still stops its runs", "[trainer][sweep]") {
  loci::test::TempDir dir;
  const TrainingSweep t = two_runs_training(dir, dir.path() / "sweep.log");
  const pid_t sweep = t.sweep;
  const auto& runs = t.runs;

  ::kill(sweep, SIGKILL);
  int status = 0;
  REQUIRE(::waitpid(sweep, &status, 0) == sweep);
  const auto deadline = std::chrono::steady_clock::now() + 30s;
  auto all_ended = [&] {
    for (const pid_t run : runs)
      if (!has_ended(run)) return false;
    return true;
  };
  while (!all_ended() && std::chrono::steady_clock::now() < deadline) std::this_thread::sleep_for(50ms);
  CHECK(all_ended());
}

// `loci run` generates first, in the same process, on several threads that stay: the stop must reach the sweep
// whichever of its threads the kernel hands the signal to.
TEST_CASE("SIGTERM to loci run stops the sweep after generation on several threads", "[trainer][sweep]") {
  loci::test::TempDir dir;
  const auto out = dir.path() / "pipe";
  const auto cfg = dir.write(
      "pipe.yaml", "out: " + out.string() + "\ngenerate:\n  include: " + std::string(LOCI_SOURCE_DIR) +
                       "/configs/lst.yaml\n  out: " + out.string() +
                       "/data\n  splits: {train: 256, test: 16}\n"
                       "  samples_per_shard: 32\n  threads: 2\n"
                       "train:\n  trainer: torch_trainer\n  jobs: 2\n  sweep: [\"model.pe.init.std=0.1,1.0\"]\n"
                       "  model: {d_model: 16, blocks: 1}\n  train: {epochs: 100000, eval_every: 1, batch_size: 32}\n");
  const fs::path log = dir.path() / "run.log";
  const pid_t run = start_loci({"run", "-q", cfg}, log);
  REQUIRE(run > 0);
  const auto runs = wait_for_two_runs(run, out / "runs", "model.pe.init.std=0.1", "model.pe.init.std=1.0");
  INFO(loci::test::slurp(log));
  REQUIRE(runs.size() == 2);

  ::kill(run, SIGTERM);
  int status = 0;
  REQUIRE(::waitpid(run, &status, 0) == run);
  CHECK(WIFSIGNALED(status));
  for (const pid_t child : runs) {
    CHECK(::kill(child, 0) == -1);
    CHECK(errno == ESRCH);
  }
  CHECK_THAT(loci::test::slurp(log), Catch::Contains("stopping 2 run(s)"));
}

TEST_CASE("SIGUSR1 at once after loci train starts pauses the run at its epoch's end instead of ending it",
          "[trainer][signal]") {
  loci::test::TempDir dir;
  const fs::path log = dir.path() / "train.log";
  const pid_t run = start_loci({"train", "-q", loci::test::train_config(dir), "train.epochs=100000"}, log);
  REQUIRE(run > 0);
  // Before plugins, LibTorch or the data are loaded: the default action would end the process (exit 138). The
  // signal goes as soon as the process catches it (its SigCgt mask in /proc): the dynamic loader's time before any
  // code of loci runs varies with the machine's load, and no program can take a signal then.
  const auto deadline = std::chrono::steady_clock::now() + 30s;
  while (!catches_usr1(run) && std::chrono::steady_clock::now() < deadline) std::this_thread::sleep_for(1ms);
  REQUIRE(catches_usr1(run));
  ::kill(run, SIGUSR1);
  int status = 0;
  REQUIRE(::waitpid(run, &status, 0) == run);
  INFO(loci::test::slurp(log));
  CHECK(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 0);
  CHECK(fs::exists(dir.path() / "run/checkpoints/last.pt"));
  CHECK_FALSE(fs::exists(dir.path() / "run/summary.json"));
}

TEST_CASE("SIGUSR1 to a sweep pauses every running run with a checkpoint and starts no other", "[trainer][sweep]") {
  loci::test::TempDir dir;
  const fs::path log = dir.path() / "sweep.log";
  const pid_t sweep = start_loci(
      {"train", "-q", loci::test::train_config(dir), "-m", "seed=0,1,2", "jobs=2", "train.epochs=100000"}, log);
  REQUIRE(wait_for_two_runs(sweep, dir.path() / "run").size() == 2);
  ::kill(sweep, SIGUSR1);
  int status = 0;
  REQUIRE(::waitpid(sweep, &status, 0) == sweep);
  const std::string said = loci::test::slurp(log);
  INFO(said);
  CHECK(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 0);
  CHECK_THAT(said, Catch::Contains("paused seed=0") && Catch::Contains("paused seed=1"));
  CHECK_THAT(said, Catch::Contains("the sweep paused") && Catch::Contains("1 not started"));
  CHECK_FALSE(fs::exists(dir.path() / "run/seed=2"));
  for (const char* r : {"seed=0", "seed=1"}) CHECK(fs::exists(dir.path() / "run" / r / "checkpoints/last.pt"));
}

// A shell's `kill -TERM -PGID` (or Ctrl-C) reaches the sweep and its runs at once; the runs' ends may reach the sweep
// before its own signal does. Every run must read as stopped, none as failed, and no run may start after them.
TEST_CASE("SIGTERM to a sweep's whole process group stops every run and starts no other", "[trainer][sweep]") {
  loci::test::TempDir dir;
  const fs::path log = dir.path() / "sweep.log";
  const pid_t sweep = start_loci(
      {"train", "-q", loci::test::train_config(dir), "-m", "seed=0,1,2", "jobs=2", "train.epochs=100000"}, log, true);
  REQUIRE(wait_for_two_runs(sweep, dir.path() / "run").size() == 2);
  ::kill(-sweep, SIGTERM);
  int status = 0;
  REQUIRE(::waitpid(sweep, &status, 0) == sweep);
  const std::string said = loci::test::slurp(log);
  INFO(said);
  CHECK(WIFSIGNALED(status));
  CHECK_THAT(said, Catch::Contains("stopped seed=0") && Catch::Contains("stopped seed=1"));
  CHECK_THAT(said, !Catch::Contains("FAILED"));
  CHECK_FALSE(fs::exists(dir.path() / "run/seed=2"));
}

// One run's process stopped by its pid (a user's `kill`, a node's OOM guard sending SIGTERM): the sweep does not go on
// as if it had failed; it stops its other runs, keeps their checkpoints, and the same command resumes all three.
TEST_CASE("SIGTERM to one run of a sweep stops the sweep, that run read as stopped, not failed", "[trainer][sweep]") {
  loci::test::TempDir dir;
  const fs::path log = dir.path() / "sweep.log";
  const pid_t sweep = start_loci(
      {"train", "-q", loci::test::train_config(dir), "-m", "seed=0,1,2", "jobs=2", "train.epochs=100000"}, log);
  const auto runs = wait_for_two_runs(sweep, dir.path() / "run");
  REQUIRE(runs.size() == 2);
  ::kill(runs.front(), SIGTERM);
  int status = 0;
  REQUIRE(::waitpid(sweep, &status, 0) == sweep);
  const std::string said = loci::test::slurp(log);
  INFO(said);
  CHECK_THAT(said, Catch::Contains("stopped seed=0") && Catch::Contains("stopped seed=1"));
  CHECK_THAT(said, !Catch::Contains("FAILED"));
  CHECK_FALSE(fs::exists(dir.path() / "run/seed=2"));
  for (const pid_t run : runs) CHECK(has_ended(run));
  for (const char* r : {"seed=0", "seed=1"}) CHECK(fs::exists(dir.path() / "run" / r / "checkpoints/last.pt"));
}
