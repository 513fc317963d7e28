// A run killed with SIGKILL half-way and then resumed makes the same dataset as a run never interrupted.
#include <catch2/catch.hpp>

#include <signal.h>
#include <sys/wait.h>

#include <chrono>
#include <fstream>
#include <thread>

#include <nlohmann/json.hpp>

#include "datasets/reader.hpp"
#include "synthetic_source.hpp"
#include "test_util.hpp"

using namespace loci;
namespace fs = std::filesystem;

namespace {

std::size_t shard_records(const fs::path& out) {
  std::size_t n = 0;
  std::error_code ec;
  for (fs::directory_iterator it(out / ".loci-journal", ec), end; !ec && it != end; it.increment(ec))
    n += it->path().filename().string() != "dataset.json" && it->path().extension() == ".json";
  return n;
}

}  // namespace

TEST_CASE("a generation killed by SIGKILL resumes to the uninterrupted result", "[datasets][resume]") {
  const auto dir = test::fresh_dir("resume");
  const std::vector<std::string> common = {"--train", "60", "--test", "10", "--per-shard", "10", "--threads", "2"};
  auto with = [&](const fs::path& out, std::vector<std::string> extra) {
    std::vector<std::string> args = {out.string()};
    args.insert(args.end(), common.begin(), common.end());
    args.insert(args.end(), extra.begin(), extra.end());
    return args;
  };

  const fs::path whole = dir / "uninterrupted", killed = dir / "killed";
  REQUIRE(test::run_helper(with(whole, {})).status == 0);

  // 20 ms a sample on 2 threads: about 0.1 s a shard, 0.7 s in all. Kill once two shards are recorded.
  const pid_t pid = test::spawn_helper(with(killed, {"--delay-us", "20000"}));
  REQUIRE(pid > 0);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (shard_records(killed) < 2 && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  ::kill(pid, SIGKILL);
  int status = 0;
  ::waitpid(pid, &status, 0);
  REQUIRE(WIFSIGNALED(status));
  REQUIRE_FALSE(fs::exists(killed / "index.json"));
  const std::size_t recorded = shard_records(killed);
  REQUIRE(recorded >= 2);
  REQUIRE(recorded < 7);

  // Without resume (or force) the unfinished run is not overwritten.
  const auto refused = test::run_helper(with(killed, {}));
  CHECK(refused.status == 2);
  CHECK_THAT(refused.err, Catch::Contains("unfinished run") && Catch::Contains("pass --resume"));
  CHECK_THAT(refused.err, Catch::Contains(killed.string()));

  const auto resumed = test::run_helper(with(killed, {"--resume"}));
  REQUIRE(resumed.status == 0);
  CHECK_THAT(resumed.out, Catch::Contains("kept=" + std::to_string(recorded)));
  CHECK_THAT(resumed.out, Catch::Contains("written=" + std::to_string(7 - recorded)));

  const auto a = nlohmann::json::parse(test::slurp(whole / "index.json"));
  const auto b = nlohmann::json::parse(test::slurp(killed / "index.json"));
  CHECK(a["shards"] == b["shards"]);
  CHECK(test::read_everything(datasets::Dataset::open(whole)) ==
        test::read_everything(datasets::Dataset::open(killed)));
  CHECK(test::files_in(whole) == test::files_in(killed));  // the journal and any temporaries are gone

  // Resuming a complete dataset keeps every shard and changes nothing.
  const auto again = test::run_helper(with(killed, {"--resume"}));
  CHECK(again.status == 0);
  CHECK_THAT(again.out, Catch::Contains("written=0 kept=7"));
  CHECK(test::slurp(whole / "index.json") == test::slurp(killed / "index.json"));
}

TEST_CASE("resume remakes a shard whose bytes no longer match", "[datasets][resume]") {
  const auto dir = test::fresh_dir("resume-damaged");
  const fs::path out = dir / "ds";
  REQUIRE(test::run_helper({out.string()}).status == 0);
  const std::string before = test::slurp(out / "train-00002-of-00004.h5");
  {
    std::fstream f(out / "train-00002-of-00004.h5", std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(100);
    f.put('\x5a');
  }
  const auto r = test::run_helper({out.string(), "--resume"});
  REQUIRE(r.status == 0);
  CHECK_THAT(r.out, Catch::Contains("written=1 kept=5"));
  CHECK(test::slurp(out / "train-00002-of-00004.h5") == before);
  CHECK(datasets::Dataset::open(out).verify().shards == 6);
}

TEST_CASE("ranks make disjoint shards and the last to finish writes the index", "[datasets][resume]") {
  const auto dir = test::fresh_dir("subset");
  const test::SyntheticSource src;
  auto whole = test::small_options(dir / "whole");
  datasets::generate_dataset(src, whole);

  auto part = test::small_options(dir / "parts");
  part.world_size = 2;
  part.rank = 1;  // shards 1, 3, 5 of 6
  auto r = datasets::generate_dataset(src, part);
  CHECK(r.shards_written == 3);
  CHECK_FALSE(r.complete);
  CHECK_FALSE(fs::exists(part.out / "index.json"));
  CHECK(fs::exists(part.out / "train-00001-of-00004.h5"));
  CHECK_FALSE(fs::exists(part.out / "train-00000-of-00004.h5"));
  CHECK_THROWS_WITH(datasets::Dataset::open(part.out), Catch::Contains("did not finish"));

  part.rank = 0;  // no resume: the unfinished run is the other rank's, not an obstacle
  r = datasets::generate_dataset(src, part);
  CHECK(r.shards_written == 3);
  CHECK(r.complete);
  CHECK_FALSE(fs::exists(part.out / ".loci-journal"));
  CHECK(test::slurp(whole.out / "index.json") == test::slurp(part.out / "index.json"));
  CHECK(test::read_everything(datasets::Dataset::open(whole.out)) ==
        test::read_everything(datasets::Dataset::open(part.out)));

  part.force = true;  // would remove the other ranks' shards
  CHECK_THROWS_WITH(datasets::generate_dataset(src, part), Catch::Contains("force cannot be used by one rank of 2"));
}
