// What generation does with its output folder: unwritable or full, it fails cleanly; holding something else, it
// refuses unless forced.
#include <catch2/catch.hpp>

#include <unistd.h>

#include <fstream>

#include "datasets/error.hpp"
#include "datasets/generate.hpp"
#include "datasets/reader.hpp"
#include "synthetic_source.hpp"
#include "test_util.hpp"

using namespace loci;
using Catch::Contains;
namespace fs = std::filesystem;

TEST_CASE("an unwritable folder gives one DataError and leaves nothing behind", "[datasets][folder]") {
  const auto dir = test::fresh_dir("unwritable");
  const fs::path locked = dir / "locked";
  fs::create_directory(locked);
  fs::permissions(locked, fs::perms::owner_read | fs::perms::owner_exec | fs::perms::group_read |
                              fs::perms::group_exec | fs::perms::others_read | fs::perms::others_exec);
  const auto r = test::run_helper({locked.string(), "--as-nobody"});
  fs::permissions(locked, fs::perms::owner_all, fs::perm_options::add);
  CHECK(r.status == 2);
  CHECK_THAT(r.err, Contains(locked.string()) && Contains("Permission denied"));
  CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
  CHECK(test::files_in(locked).empty());

  // A path through a plain file cannot become a folder at all.
  std::ofstream(dir / "plain-file") << "x";
  auto o = test::small_options(dir / "plain-file" / "ds");
  REQUIRE_THROWS_AS(datasets::generate_dataset(test::SyntheticSource(), o), datasets::DataError);
  REQUIRE_THROWS_WITH(datasets::generate_dataset(test::SyntheticSource(), o),
                      Contains((dir / "plain-file" / "ds").string() + ": cannot create folder"));
}

TEST_CASE("a disk that fills up mid-shard leaves only whole shards", "[datasets][folder]") {
  const auto dir = test::fresh_dir("full");
  const fs::path out = dir / "ds";
  // A shard here is about 50 KB; a 30 KB cap on file size makes write() fail half-way through the first one, as a
  // full disk would (the small journal files still fit).
  const auto r = test::run_helper({out.string(), "--fsize-limit", "30000", "--per-shard", "20", "--train", "200"});
  CHECK(r.status == 2);
  CHECK_THAT(r.err, Contains(out.string() + "/train-") && Contains(".h5: write failed (File too large)"));
  for (const auto& f : test::files_in(out)) {
    INFO(f);
    CHECK(f.find(".tmp") == std::string::npos);
  }
  CHECK_FALSE(fs::exists(out / "index.json"));
  CHECK_FALSE(fs::exists(out / "train-00000-of-00010.h5"));
  // The journal knows the run, so resuming without the cap finishes the dataset.
  const auto resumed = test::run_helper({out.string(), "--per-shard", "20", "--train", "200", "--resume"});
  CHECK(resumed.status == 0);
  CHECK(datasets::Dataset::open(out).verify().shards == 11);
}

TEST_CASE("a folder holding another dataset or other files is refused unless forced", "[datasets][folder]") {
  const auto dir = test::fresh_dir("refuse");
  const test::SyntheticSource src;
  auto o = test::small_options(dir / "ds");
  datasets::generate_dataset(src, o);

  auto other = o;
  other.seed = 8;
  REQUIRE_THROWS_WITH(
      datasets::generate_dataset(src, other),
      o.out.string() + ": holds a different dataset (seed 7 vs 8 in index.json); pass --force to replace it");
  other.resume = true;
  REQUIRE_THROWS_WITH(datasets::generate_dataset(src, other), Contains("holds a different dataset (seed 7 vs 8"));
  other.config_yaml = "generator: synthetic\nseed: 8\n";
  other.seed = 7;
  REQUIRE_THROWS_WITH(datasets::generate_dataset(src, other),
                      Contains("holds a different dataset (its configuration differs: seed 7 vs 8"));
  CHECK(datasets::Dataset::open(o.out).verify().shards == 6);  // the refusals touched nothing

  REQUIRE_THROWS_WITH(datasets::generate_dataset(src, o), Contains("already holds this dataset; pass --resume"));

  other.force = true;
  other.resume = false;
  other.seed = 8;
  other.splits = {{"train", 5}};
  const auto r = datasets::generate_dataset(src, other);
  CHECK(r.shards_written == 1);
  CHECK(test::files_in(o.out) == std::vector<std::string>{"dataset_card.md", "index.json", "train-00000-of-00001.h5"});

  // Somebody else's files: refused, and kept even when forced.
  const fs::path mine = dir / "mine";
  fs::create_directory(mine);
  std::ofstream(mine / "notes.txt") << "keep me";
  auto into = test::small_options(mine);
  REQUIRE_THROWS_WITH(
      datasets::generate_dataset(src, into),
      mine.string() + ": is not empty and holds no loci dataset; choose an empty folder or pass --force");
  into.force = true;
  datasets::generate_dataset(src, into);
  CHECK(test::slurp(mine / "notes.txt") == "keep me");
  CHECK(datasets::Dataset::open(mine).verify().shards == 6);
}
