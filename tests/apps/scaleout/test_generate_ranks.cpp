// `loci generate` under a launcher: two ranks on this machine make the same bytes as one process, a rank killed
// half-way is rerun alone with --resume, and --merge writes (or confirms) the index from the ranks' records.
#include <catch2/catch.hpp>

#include "core/launch.hpp"

#include <map>

#include "tests/apps/scaleout/ranks.hpp"
#include "tests/support/run_command.hpp"
#include "tests/support/temp_files.hpp"

namespace fs = std::filesystem;
using loci::test::run_loci;

namespace {

// Every file of a dataset folder (hidden ones included) and its bytes.
std::map<std::string, std::string> files_of(const fs::path& dir) {
  std::map<std::string, std::string> out;
  for (const auto& e : fs::recursive_directory_iterator(dir))
    // A writer's claim on the folder (.loci-lock, one per rank) and how it ran (provenance.json) are the
    // process's, not the dataset's.
    if (e.is_regular_file() && e.path().filename().string().rfind(".loci-lock", 0) != 0 &&
        e.path().filename() != "provenance.json") {
      std::ifstream in(e.path(), std::ios::binary);
      std::ostringstream s;
      s << in.rdbuf();
      out[fs::relative(e.path(), dir).string()] = s.str();
    }
  return out;
}

std::size_t records_of(const fs::path& out, const std::string& prefix) {
  std::size_t n = 0;
  std::error_code ec;
  for (fs::directory_iterator it(out / ".loci-journal", ec), end; !ec && it != end; it.increment(ec))
    n += it->path().filename().string().rfind(prefix, 0) == 0;
  return n;
}

// 13 shards: train 8 x 40, test 2 x 40, human 108 in 3 (a split lst_grid fixes itself).
std::string config(const loci::test::TempDir& dir) {
  return dir.write("data.yaml", "include: " + std::string(LOCI_SOURCE_DIR) +
                                    "/configs/lst.yaml\nsplits: {train: 320, test: 80}\nsamples_per_shard: 40\n"
                                    "threads: 1\nout: unused\n");
}

}  // namespace

// Both runs write `out=data` below their own folder: the resolved config (out included) is part of every shard.
TEST_CASE("two ranks make the dataset one process makes byte for byte") {
  loci::test::TempDir dir;
  const std::string cfg = config(dir), args = "generate " + cfg + " out=data";
  const fs::path single = dir.path() / "single", ranked = dir.path() / "ranked";
  fs::create_directories(single);
  fs::create_directories(ranked);
  const auto one = run_loci(args, "cd " + single.string() + " &&");
  INFO(one.output);
  REQUIRE(one.exit_code == 0);

  const auto codes = loci::test::run_ranks(2, args, dir.path(), ranked);
  const std::string log0 = loci::test::RankProcess{-1, dir.path() / "rank0.log"}.output();
  const std::string log1 = loci::test::RankProcess{-1, dir.path() / "rank1.log"}.output();
  INFO(log0 << log1);
  REQUIRE(codes == std::vector<int>{0, 0});
  CHECK_THAT(log0, Catch::Contains("rank 0 of 2 (RANK/WORLD_SIZE) wrote 268 samples in 7 shards"));
  CHECK_THAT(log1, Catch::Contains("rank 1 of 2 (RANK/WORLD_SIZE) wrote 240 samples in 6 shards"));
  CHECK((log0 + log1).find("index.json is in place") != std::string::npos);

  const auto want = files_of(single / "data"), got = files_of(ranked / "data");
  CHECK(want.size() == 15);  // 13 shards, index.json and dataset_card.md
  for (const auto& [name, bytes] : want) {
    INFO(name);
    CHECK((got.count(name) && got.at(name) == bytes));
  }
  CHECK(got.size() == want.size());

  // --merge on a finished dataset changes nothing.
  const auto merged = run_loci(args + " --merge", "cd " + ranked.string() + " &&");
  INFO(merged.output);
  CHECK(merged.exit_code == 0);
  CHECK_THAT(merged.output, Catch::Contains("lists all 13 shards"));
  CHECK(files_of(ranked / "data") == got);
}

TEST_CASE("a rank killed half-way is rerun alone with --resume") {
  loci::test::TempDir dir;
  const std::string cfg = config(dir), args = "generate -q " + cfg + " out=data";
  const fs::path single = dir.path() / "single", ranked = dir.path() / "ranked", data = ranked / "data";
  fs::create_directories(single);
  fs::create_directories(ranked);
  REQUIRE(run_loci(args, "cd " + single.string() + " &&").exit_code == 0);

  // Rank 0 runs to its end; rank 1 is killed once it has recorded one of its six shards.
  const int port = loci::test::free_port();
  const auto r0 = loci::test::start_rank(0, 2, port, args, dir.path() / "rank0.log", ranked);
  const auto r1 = loci::test::start_rank(1, 2, port, args, dir.path() / "rank1.log", ranked);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
  // Rank 1 makes train 1, 3, 5, 7, test 1 and human 1 (plan indices 1, 3, ..., 11), in that order.
  while (records_of(data, "train-00001") < 1 && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  ::kill(r1.pid, SIGKILL);
  CHECK(loci::test::wait_rank(r1) == 128 + SIGKILL);
  INFO(r0.output());
  REQUIRE(loci::test::wait_rank(r0) == 0);
  REQUIRE_FALSE(fs::exists(data / "index.json"));
  REQUIRE(records_of(data, "human-00001") == 0);  // killed before its last shard: a real half-way death

  // --merge names what is missing instead of writing an incomplete index.
  const auto early = run_loci("generate " + cfg + " out=data --merge", "cd " + ranked.string() + " &&");
  CHECK(early.exit_code == 1);
  CHECK_THAT(early.output, Catch::Contains("cannot merge:") && Catch::Contains("rerun the ranks that make them"));

  // The dead rank alone, resumed: it keeps what it recorded, makes the rest, and writes the index.
  const auto rerun = loci::test::start_rank(1, 2, port, args + " --resume", dir.path() / "rerun.log", ranked);
  INFO(rerun.output());
  REQUIRE(loci::test::wait_rank(rerun) == 0);
  CHECK(files_of(data) == files_of(single / "data"));
}

TEST_CASE("mpirun's and PMI's rank variables are read and bad ones are refused in one line") {
  loci::test::TempDir dir;
  const std::string args = "generate " + config(dir) + " out=" + (dir.path() / "data").string() + " splits.train=40";
  // 6 shards: train 1, test 2, human 3; rank 1 of 2 makes plan indices 1, 3, 5.
  const auto ompi = run_loci(args, "OMPI_COMM_WORLD_RANK=1 OMPI_COMM_WORLD_SIZE=2");
  CHECK_THAT(ompi.output,
             Catch::Contains("rank 1 of 2 (OMPI_COMM_WORLD_RANK/OMPI_COMM_WORLD_SIZE) wrote 108 samples in 3 shards"));
  const auto pmi = run_loci(args, "PMI_RANK=0 PMI_SIZE=2");
  CHECK_THAT(pmi.output,
             Catch::Contains("rank 0 of 2 (PMI_RANK/PMI_SIZE)") && Catch::Contains("index.json is in place"));
  CHECK(fs::exists(dir.path() / "data/index.json"));

  CHECK(loci::test::refusal(run_loci(args, "RANK=2 WORLD_SIZE=2")) ==
        "loci: error: RANK=2 is not below WORLD_SIZE=2\n");
  const auto half = run_loci(args, "PMI_RANK=0");
  CHECK(half.output == "loci: error: PMI_RANK is set but PMI_SIZE is not; a launcher sets both\n");
  const auto word = run_loci(args, "RANK=zero WORLD_SIZE=2");
  CHECK(word.output == "loci: error: environment variable RANK='zero' is not a rank (0, 1, ...)\n");
  CHECK(run_loci(args + " --force", "RANK=0 WORLD_SIZE=2").output.find("force cannot be used by one rank of 2") !=
        std::string::npos);
}

TEST_CASE("a job step's Slurm variables are a launch, a batch script's are not") {
  loci::test::TempDir dir;
  const std::string args = "generate " + config(dir) + " out=" + (dir.path() / "data").string() + " splits.train=40";
  const auto step = run_loci(args, "SLURM_PROCID=1 SLURM_STEP_NUM_TASKS=2 SLURM_NTASKS=2");
  CHECK_THAT(step.output, Catch::Contains("rank 1 of 2 (SLURM_PROCID/SLURM_STEP_NUM_TASKS)"));
  // In a batch script of a 2-task job: one process, the whole dataset.
  loci::test::TempDir alone;
  const auto batch =
      run_loci("generate " + config(alone) + " out=" + (alone.path() / "data").string() + " splits.train=40",
               "SLURM_PROCID=0 SLURM_NTASKS=2");
  INFO(batch.output);
  CHECK(batch.exit_code == 0);
  CHECK(fs::exists(alone.path() / "data/index.json"));
  CHECK_THAT(batch.output, !Catch::Contains("rank 0 of 2"));
}

TEST_CASE("rank 0's host is the first of a Slurm node list") {
  CHECK(loci::first_slurm_host("vm") == "vm");
  CHECK(loci::first_slurm_host("node[07-09,12],gpu1") == "node07");
  CHECK(loci::first_slurm_host("a,b") == "a");
  CHECK(loci::first_slurm_host("rack1-n[3,5]") == "rack1-n3");
}
