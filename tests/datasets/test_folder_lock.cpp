// A writer's claim on its folder (.loci-lock) is a plain file loci made: a link or someone else's file planted in
// its place is refused with the lock's path, and nothing outside the folder is written.
#include <catch2/catch.hpp>

#include <unistd.h>

#include <fstream>

#include "datasets/error.hpp"
#include "datasets/folder_lock.hpp"
#include "datasets/generate.hpp"
#include "synthetic_source.hpp"
#include "test_util.hpp"
#include "tests/support/temp_files.hpp"

using namespace loci;
using Catch::Contains;
namespace fs = std::filesystem;

TEST_CASE("a .loci-lock that is a symbolic link is refused and its target left alone", "[datasets][folder][lock]") {
  const auto dir = test::fresh_dir("lock_symlink");
  std::ofstream(dir / "victim.txt") << "precious\n";
  const fs::path out = dir / "ds";
  fs::create_directory(out);
  fs::create_symlink("../victim.txt", out / ".loci-lock");
  REQUIRE_THROWS_WITH(datasets::FolderLock(out), Contains((out / ".loci-lock").string()) && Contains("symbolic link"));
  // Through generation too: the claim comes before any shard.
  REQUIRE_THROWS_AS(datasets::generate_dataset(test::SyntheticSource(), test::small_options(out)), datasets::DataError);
  CHECK(loci::test::slurp(dir / "victim.txt") == "precious\n");
  // A dangling link must not create its target either.
  const fs::path run = dir / "run";
  fs::create_directory(run);
  fs::create_symlink(dir / "created-elsewhere", run / ".loci-lock");
  CHECK_THROWS_AS(datasets::FolderLock(run), datasets::DataError);
  CHECK_FALSE(fs::exists(dir / "created-elsewhere"));
}

TEST_CASE("a .loci-lock that is a hard link or holds foreign text is refused", "[datasets][folder][lock]") {
  const auto dir = test::fresh_dir("lock_foreign");
  std::ofstream(dir / "victim.txt") << "precious\n";
  const fs::path linked = dir / "linked";
  fs::create_directory(linked);
  fs::create_hard_link(dir / "victim.txt", linked / ".loci-lock");
  CHECK_THROWS_WITH(datasets::FolderLock(linked), Contains("hard link"));
  CHECK(loci::test::slurp(dir / "victim.txt") == "precious\n");

  const fs::path foreign = dir / "foreign";
  fs::create_directory(foreign);
  std::ofstream(foreign / ".loci-lock") << "my notes\n";
  CHECK_THROWS_WITH(datasets::FolderLock(foreign), Contains("other than a loci claim"));
  CHECK(loci::test::slurp(foreign / ".loci-lock") == "my notes\n");

  const fs::path folder = dir / "folder";
  fs::create_directories(folder / ".loci-lock");
  CHECK_THROWS_AS(datasets::FolderLock(folder), datasets::DataError);
}

TEST_CASE("a claim a finished writer left behind is taken over and names this process", "[datasets][folder][lock]") {
  const auto dir = test::fresh_dir("lock_stale");
  std::ofstream(dir / ".loci-lock") << "pid 1 on elsewhere\n";
  {
    const datasets::FolderLock claim(dir);
    CHECK(loci::test::slurp(dir / ".loci-lock").rfind("pid " + std::to_string(getpid()) + " on ", 0) == 0);
  }
  const datasets::FolderLock again(dir);  // released on scope exit: the same folder can be claimed anew
}

TEST_CASE("a .loci-journal that is a symbolic link is refused and nothing is written through it",
          "[datasets][folder][lock]") {
  const auto dir = test::fresh_dir("journal_symlink");
  const fs::path elsewhere = dir / "elsewhere", out = dir / "ds";
  fs::create_directories(elsewhere);
  fs::create_directories(out);
  fs::create_directory_symlink(elsewhere, out / ".loci-journal");
  REQUIRE_THROWS_WITH(datasets::generate_dataset(test::SyntheticSource(), test::small_options(out)),
                      Contains((out / ".loci-journal").string()) && Contains("symbolic link"));
  CHECK(fs::is_empty(elsewhere));
}
