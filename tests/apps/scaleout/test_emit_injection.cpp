// No value reaches an emitted script as anything but one shell word: an `out` (or any sweep value) holding `$(...)`,
// backticks, quotes, `;` and globs is passed intact to loci and runs nothing, under `--emit list`, `loci train -m
// --emit slurm` and `loci run --emit slurm` (with a stand-in sbatch, since no cluster is needed to run the script's
// own lines). A value with a line break, which no script line can hold, is refused at its key.
#include <catch2/catch.hpp>

#include <fstream>
#include <sstream>

#include "tests/support/run_command.hpp"
#include "tests/support/temp_files.hpp"

namespace fs = std::filesystem;
using loci::test::lines_of;
using loci::test::run_loci;
using loci::test::shell_status;

namespace {

// Every shell construct that would run or expand if the value were pasted unquoted. In YAML single quotes ('' is ').
const char* kHostileYaml = "h $(touch PWNED_A) `touch PWNED_B`; ''q'' \"d\" * {a,b} ~x";
const char* kHostile = "h $(touch PWNED_A) `touch PWNED_B`; 'q' \"d\" * {a,b} ~x";

// Whether any file named PWNED_* exists at or below `root` or in /tmp (where a `cd`-less injection would land).
bool anything_ran(const fs::path& root) {
  for (const auto& e : fs::recursive_directory_iterator(root))
    if (e.path().filename().string().rfind("PWNED_", 0) == 0) return true;
  return fs::exists("/PWNED_A") || fs::exists("/PWNED_B");
}

struct HostileSweep {
  loci::test::TempDir dir;
  std::string cfg;
  HostileSweep() {
    const auto data = dir.write("data.yaml", "include: " + std::string(LOCI_SOURCE_DIR) +
                                                 "/configs/lst.yaml\nout: data\nsplits: {train: 64, test: 16}\n");
    REQUIRE(run_loci("generate -q " + data, "cd " + dir.path().string() + " &&").exit_code == 0);
    cfg = dir.write("train.yaml", std::string("trainer: torch_trainer\ndata: data\nout: 'sweep/") + kHostileYaml +
                                      "'\nmodel: {d_model: 8, blocks: 1}\n"
                                      "train: {epochs: 1, eval_every: 1, batch_size: 32, threads: 1}\n");
  }
  loci::test::CommandResult emit(const std::string& format, const std::string& config) const {
    return run_loci("train " + config + " -m seed=0,1 --emit " + format, "cd " + dir.path().string() + " &&");
  }
  fs::path run(int seed) const { return dir.path() / "sweep" / kHostile / ("seed=" + std::to_string(seed)); }
};

}  // namespace

TEST_CASE("emit list: one line per point, each value one word that arrives intact and runs nothing") {
  const HostileSweep s;
  const auto r = s.emit("list", s.cfg);
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  const auto cmds = lines_of(r.output);
  REQUIRE(cmds.size() == 2);
  const std::string script = s.dir.write("line0.sh", cmds[0] + "\n");
  REQUIRE(shell_status("cd / && bash " + script + " > /dev/null 2>&1") == 0);
  CHECK(fs::exists(s.run(0) / "summary.json"));
  CHECK_FALSE(anything_ran(s.dir.path()));
}

TEST_CASE("loci train -m --emit slurm: the task runs its point under the hostile out, and nothing else runs") {
  const HostileSweep s;
  const auto r = s.emit("slurm", s.cfg);
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  const std::string script = s.dir.write("array.sh", r.output);
  REQUIRE(shell_status("bash -n " + script) == 0);
  REQUIRE(shell_status("cd / && SLURM_ARRAY_TASK_ID=1 bash " + script + " > /dev/null 2>&1") == 0);
  CHECK(fs::exists(s.run(1) / "summary.json"));
  CHECK_FALSE(fs::exists(s.run(0)));
  CHECK_FALSE(anything_ran(s.dir.path()));
  // The header quotes what was typed, so it pastes back as one command.
  CHECK_THAT(r.output, Catch::Contains("#   loci train " + s.cfg + " -m seed=0,1 --emit slurm\n"));
}

TEST_CASE("a value with a line break is refused at its key by every emitter") {
  const HostileSweep s;
  const std::string broken =
      s.dir.write("broken.yaml",
                  "trainer: torch_trainer\ndata: data\nout: \"tout/a\\ntouch PWNED_C #\"\n"
                  "model: {d_model: 8, blocks: 1}\ntrain: {epochs: 1, eval_every: 1, batch_size: 32, threads: 1}\n");
  for (const char* format : {"list", "slurm"}) {
    const auto r = s.emit(format, broken);
    INFO(format << ": " << r.output);
    CHECK(r.exit_code == 1);
    CHECK(r.output ==
          "loci: error: out: its value holds a line break or NUL, which no line of an emitted script can "
          "hold\n");
  }
  // A sweep value with one, from a pipeline's sweep entry or the command line, names its own key.
  const auto value = run_loci("train " + broken +
                                  " out=fine -m 'train.lr=0.001,0.01' \"model.pe.init.std=$(printf "
                                  "'0.2\\ntouch PWNED_D')\" --emit list",
                              "cd " + s.dir.path().string() + " &&");
  CHECK(value.exit_code == 1);
  CHECK_THAT(value.output, Catch::Contains("model.pe.init.std"));
  CHECK_FALSE(anything_ran(s.dir.path()));
}

TEST_CASE("loci run --emit slurm: the pipeline script passes the hostile out intact to sbatch and runs nothing") {
  loci::test::TempDir dir;
  const std::string src = LOCI_SOURCE_DIR;
  const std::string pipeline = dir.write(
      "p.yaml", std::string("out: 'pipe/") + kHostileYaml + "'\n" + "generate:\n  include: " + src +
                    "/configs/lst.yaml\n  splits: {train: 64, test: 16}\n"
                    "train:\n  include: " +
                    src +
                    "/configs/lst_train.yaml\n  model: {d_model: 8, blocks: 1}\n"
                    "  train: {epochs: 1, eval_every: 1, batch_size: 32, threads: 1}\n  sweep: [[\"seed=0,1\"]]\n"
                    "analyze: {}\n");
  const auto r = run_loci("run " + pipeline + " --emit slurm", "cd " + dir.path().string() + " &&");
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  const std::string script = dir.write("p.sh", r.output);
  // A stand-in sbatch: records each argument on its own line and answers with a job id.
  const std::string stub =
      dir.write("bin/sbatch", "#!/bin/bash\nprintf '%s\\n' \"$@\" >> \"$SBATCH_LOG\"\necho 4242\n");
  fs::permissions(stub, fs::perms::owner_all);
  const fs::path log = dir.path() / "sbatch.log";
  const auto ran = loci::test::run_command("cd / && SBATCH_LOG='" + log.string() + "' PATH='" +
                                           (dir.path() / "bin").string() + "':\"$PATH\" bash " + script);
  INFO(ran.output);
  REQUIRE(ran.exit_code == 0);
  const fs::path out = dir.path() / "pipe" / kHostile;
  CHECK(fs::exists(out / "data" / "index.json"));  // the generate stage ran under the hostile out
  CHECK_THAT(ran.output, Catch::Contains(std::string("runs under pipe/") + kHostile + "/runs\n"));  // echoed intact
  const std::string submitted = loci::test::slurp(log);
  CHECK_THAT(submitted, Catch::Contains("\n" + (out / "train-array.sh").string() + "\n"));
  CHECK_THAT(submitted, Catch::Contains("--stages analyze"));
  CHECK_FALSE(anything_ran(dir.path()));
}
