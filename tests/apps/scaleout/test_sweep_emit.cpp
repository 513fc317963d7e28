// `loci train -m ... --emit list|slurm`: the emitted commands run as they are, from anywhere, and run again they
// skip a finished point; the Slurm script runs the point its array task names.
#include <catch2/catch.hpp>

#include <sstream>

#include "tests/support/run_command.hpp"
#include "tests/support/temp_files.hpp"

namespace fs = std::filesystem;
using loci::test::lines_of;
using loci::test::run_loci;
using loci::test::shell_status;

namespace {

struct Sweep {
  loci::test::TempDir dir;
  std::string cfg;
  Sweep() {
    const auto data = dir.write("data.yaml", "include: " + std::string(LOCI_SOURCE_DIR) +
                                                 "/configs/lst.yaml\nout: data\nsplits: {train: 64, test: 16}\n");
    REQUIRE(run_loci("generate -q " + data, "cd " + dir.path().string() + " &&").exit_code == 0);
    // Relative paths, as a researcher writes them: the emitted commands must start where loci was called.
    cfg = dir.write("train.yaml",
                    "trainer: torch_trainer\ndata: data\nout: sweep\n"
                    "model: {d_model: 8, blocks: 1}\n"
                    "train: {epochs: 2, eval_every: 2, batch_size: 32, threads: 1}\n");
  }
  loci::test::CommandResult emit(const std::string& format) const {
    return run_loci("train " + cfg + " -m seed=0,1 train.lr=0.001 --emit " + format,
                    "cd " + dir.path().string() + " &&");
  }
};

std::string output_of(const std::string& command) {
  std::string out;
  FILE* pipe = popen((command + " 2>&1").c_str(), "r");
  char buf[4096];
  while (pipe && std::fgets(buf, sizeof buf, pipe)) out += buf;
  if (pipe) pclose(pipe);
  return out;
}

}  // namespace

TEST_CASE("emit list writes one runnable and resumable command per sweep point") {
  const Sweep s;
  const auto r = s.emit("list");
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  const auto cmds = lines_of(r.output);
  REQUIRE(cmds.size() == 2);
  const std::string run0 = (s.dir.path() / "sweep/seed=0").string();
  CHECK(cmds[0] == "cd " + s.dir.path().string() + " && " + std::string(LOCI_BIN) + " train " + s.cfg +
                       " train.lr=0.001 seed=0 out=" + run0 + " train.progress=false --resume");
  CHECK_THAT(cmds[1], Catch::Contains("seed=1 out=" + (s.dir.path() / "sweep/seed=1").string()));
  // Emitting runs nothing; it leaves the point list beside where the runs will be, for `loci sweep status`.
  CHECK(fs::exists(s.dir.path() / "sweep/sweep.json"));
  CHECK_FALSE(fs::exists(s.dir.path() / "sweep/seed=0"));

  // Run from elsewhere, as a scheduler would; then again, which finds the point finished.
  REQUIRE(shell_status("cd / && " + cmds[0] + " > /dev/null 2>&1") == 0);
  CHECK(fs::exists(fs::path(run0) / "summary.json"));
  CHECK_THAT(output_of("cd / && " + cmds[0]), Catch::Contains("has finished already"));
  CHECK_FALSE(fs::exists(s.dir.path() / "sweep/seed=1"));
}

TEST_CASE("emit slurm writes a job-array script whose task K runs sweep point K") {
  const Sweep s;
  const auto r = s.emit("slurm");
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  CHECK_THAT(r.output, Catch::StartsWith("#!/bin/bash\n") && Catch::Contains("\n#SBATCH --array=0-1\n"));
  const std::string script = s.dir.write("sweep.sh", r.output);
  REQUIRE(shell_status("bash -n " + script) == 0);

  CHECK(shell_status("cd / && SLURM_ARRAY_TASK_ID=1 bash " + script + " > /dev/null 2>&1") == 0);
  CHECK(fs::exists(s.dir.path() / "sweep/seed=1/summary.json"));
  CHECK_FALSE(fs::exists(s.dir.path() / "sweep/seed=0"));
  CHECK(shell_status("SLURM_ARRAY_TASK_ID=2 bash " + script + " 2> /dev/null") == 1);
  CHECK(shell_status("bash " + script + " 2> /dev/null") != 0);  // outside Slurm: refused, nothing run

  CHECK(run_loci("train " + s.cfg + " --emit list").exit_code != 0);  // --emit needs a sweep (-m)
  CHECK(s.emit("pbs").exit_code != 0);

  // --sbatch: an #SBATCH line per option, refused where it could not be one or where nothing is emitted.
  const auto opts = s.emit("slurm --sbatch partition=cpu --sbatch time=2:00:00 --sbatch array=0-1%1");
  INFO(opts.output);
  CHECK_THAT(opts.output, Catch::Contains("\n#SBATCH --partition=cpu\n") &&
                              Catch::Contains("\n#SBATCH --time=2:00:00\n") &&
                              Catch::Contains("\n#SBATCH --array=0-1%1\n") && !Catch::Contains("--array=0-1\n"));
  const auto upper = s.emit("slurm --sbatch Partition=cpu");
  CHECK(upper.exit_code == 1);
  CHECK(upper.output ==
        "loci: error: --sbatch Partition: expected an sbatch long option without its dashes, KEY or "
        "KEY=VALUE (partition=debug, time=1:00:00, cpus-per-task=4)\n");
  const auto list = s.emit("list --sbatch time=1");
  CHECK(list.exit_code == 1);
  CHECK_THAT(list.output, Catch::Contains("--sbatch options are for -m ... --emit slurm"));
}
