// Reading a config runs no code it did not ask for: `loci config show`, `loci run --dry-run` and `loci plugins`
// load no library from a folder others may write, nor an extension a generator does not need; and a second library
// with a built-in plugin's name is an error naming both, unless `plugin_override` says which wins.
#include <catch2/catch.hpp>

#include <cstdlib>
#include <filesystem>

#include "tests/support/run_command.hpp"
#include "tests/support/temp_files.hpp"

using loci::test::run_loci;
namespace fs = std::filesystem;

namespace {

const fs::path kFixtures = fs::path(LOCI_BUILD_DIR) / "tests/plugins/api/fixtures";

fs::path plugin_folder(const fs::path& root, const std::string& name, fs::perms mode) {
  const fs::path dir = root / name;
  fs::create_directories(dir);
  fs::copy_file(kFixtures / "marker_extension.so", dir / "marker_extension.so");
  fs::permissions(dir, mode);
  return dir;
}

}  // namespace

TEST_CASE("config show, dry runs and the plugin list run no code from untrusted or unneeded libraries") {
  loci::test::TempDir dir;
  const fs::path markers = dir.path() / "markers";
  fs::create_directories(markers);
  ::setenv("LOCI_TEST_MARKER_DIR", markers.c_str(), 1);
  const fs::path shared = plugin_folder(dir.path(), "shared", fs::perms::all);
  const fs::path own = plugin_folder(dir.path(), "own", fs::perms::owner_all);
  const std::string gen = dir.write("gen.yaml", "generator: lst_grid\nout: " + (dir.path() / "d").string() +
                                                    "\nplugin_path: [" + own.string() + "]\n");
  const std::string train = dir.write("train.yaml", "trainer: torch_trainer\ndata: " + (dir.path() / "d").string() +
                                                        "\nout: " + (dir.path() / "r").string() + "\nplugin_path: [" +
                                                        shared.string() + "]\n");

  auto r = run_loci("config show " + gen);  // a generator reads no extension
  INFO(r.output);
  CHECK(r.exit_code == 0);
  r = run_loci("config show " + train);  // a trainer reads extensions, but not from a folder anyone may write
  CHECK(r.exit_code == 0);
  r = run_loci("run " + std::string(LOCI_SOURCE_DIR) + "/configs/quickstart.yaml out=" + (dir.path() / "q").string() +
               " plugin_path=[" + shared.string() + "] --dry-run");
  CHECK(r.exit_code == 0);
  r = run_loci("plugins", "LOCI_PLUGIN_PATH=" + shared.string() + ":" + own.string());
  CHECK(r.exit_code == 0);
  CHECK_THAT(r.output, Catch::Contains("marker_extension") && Catch::Contains("writable by everyone (mode 0777)"));
  CHECK(fs::is_empty(markers));

  // Asked for by a trainer from a folder only its owner writes, the extension is loaded: the marker shows that
  // the checks above were not passing merely because nothing could ever load it.
  const std::string trusted = dir.write("trusted.yaml", "trainer: torch_trainer\ndata: " + (dir.path() / "d").string() +
                                                            "\nout: " + (dir.path() / "r").string() +
                                                            "\nplugin_path: [" + own.string() + "]\n");
  r = run_loci("config show " + trusted);
  CHECK(r.exit_code == 0);
  CHECK(fs::exists(markers / "marker_extension"));
}

TEST_CASE("a copy of a built-in plugin on plugin_path is an error naming both files unless plugin_override") {
  loci::test::TempDir dir;
  const fs::path extra = dir.path() / "extra";
  fs::create_directories(extra);
  fs::permissions(extra, fs::perms::owner_all);
  fs::copy_file(fs::path(LOCI_BUILD_DIR) / "lib/loci/plugins/lst_grid.so", extra / "lst_grid.so");
  const std::string gen = dir.write("gen.yaml", "generator: lst_grid\nout: " + (dir.path() / "d").string() +
                                                    "\nplugin_path: [" + extra.string() + "]\n");
  auto r = run_loci("config show " + gen);
  INFO(r.output);
  CHECK(r.exit_code == 1);
  CHECK_THAT(r.output, Catch::StartsWith("loci: error: ") && Catch::Contains("provided by both") &&
                           Catch::Contains((extra / "lst_grid.so").string()) && Catch::Contains("plugin_override"));
  CHECK(std::count(r.output.begin(), r.output.end(), '\n') == 1);
  // Named in plugin_override, the first in search order wins: the copy (it finds loci's libraries through
  // LD_LIBRARY_PATH, as its RUNPATH points elsewhere).
  r = run_loci("config show " + gen + " 'plugin_override=[lst_grid]'",
               "LD_LIBRARY_PATH=" + (fs::path(LOCI_BUILD_DIR) / "lib").string());
  INFO(r.output);
  CHECK(r.exit_code == 0);
  CHECK_THAT(r.output, Catch::StartsWith("generator: lst_grid"));
}
