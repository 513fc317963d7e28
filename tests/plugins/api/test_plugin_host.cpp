#include <catch2/catch.hpp>

#include <unistd.h>

#include <cstdlib>
#include <fstream>

#include "core/error.hpp"
#include "plugins/api/plugin_loader.hpp"

namespace fs = std::filesystem;

namespace {
const loci::plugins::RefusedPlugin* refused(const loci::plugins::PluginRegistry& r, const std::string& file) {
  for (const auto& x : r.refused())
    if (x.file.filename() == file) return &x;
  return nullptr;
}
}  // namespace

TEST_CASE("the host lists good plugins and refuses bad ones with a reason naming the file") {
  loci::plugins::PluginRegistry registry;
  registry.scan({LOCI_FIXTURE_PLUGIN_DIR});

  REQUIRE(registry.plugins().size() == 2);
  const auto& echo = registry.plugins().front();
  CHECK(echo.name == "echo_fixture");
  CHECK(echo.version == "1.2.3");
  CHECK(echo.description == "echoes sample indices (a test fixture)");
  CHECK(std::string(echo.kind_name()) == "generator");
  CHECK(echo.file.filename() == "echo_fixture.so");
  CHECK(std::string(registry.plugins().back().kind_name()) == "extension");

  const auto* abi = refused(registry, "bad_abi_plugin.so");
  REQUIRE(abi);
  CHECK(abi->reason.find("built for plugin ABI " + std::to_string(loci::kPluginAbi + 1)) != std::string::npos);

  const auto* none = refused(registry, "no_entry_library.so");
  REQUIRE(none);
  CHECK(none->reason.find("not a loci plugin: no .loci_plugin note") != std::string::npos);
}

namespace {

// A fresh folder for constructor markers, named to the fixtures through LOCI_TEST_MARKER_DIR.
struct Markers {
  fs::path dir = fs::temp_directory_path() / ("loci-test-markers-" + std::to_string(::getpid()));
  Markers() {
    fs::remove_all(dir);
    fs::create_directories(dir);
    ::setenv("LOCI_TEST_MARKER_DIR", dir.c_str(), 1);
  }
  ~Markers() { fs::remove_all(dir); }
  bool ran(const std::string& library) const { return fs::exists(dir / library); }
};

}  // namespace

TEST_CASE("listing, refusing and loading another plugin run no library's code") {
  const Markers markers;
  loci::plugins::PluginRegistry registry;
  registry.scan({LOCI_FIXTURE_PLUGIN_DIR});
  registry.find("echo_fixture", LOCI_PLUGIN_GENERATOR);  // a generator needs no extension
  CHECK_FALSE(markers.ran("bad_abi_plugin"));            // refused from its note, never loaded
  CHECK_FALSE(markers.ran("no_entry_library"));          // no note: never loaded
  CHECK_FALSE(markers.ran("marker_extension"));          // listed, not asked for
  registry.find("marker_extension", LOCI_PLUGIN_EXTENSION);
  CHECK(markers.ran("marker_extension"));  // asked for: loaded, so its constructor ran
}

TEST_CASE("a plugin file or folder that others may write is refused before it is loaded") {
  const Markers markers;
  const fs::path dir = fs::temp_directory_path() / ("loci-test-writable-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  fs::copy_file(fs::path(LOCI_FIXTURE_PLUGIN_DIR) / "marker_extension.so", dir / "marker_extension.so");
  fs::permissions(dir, fs::perms::all);  // 0777, as a shared scratch folder
  {
    loci::plugins::PluginRegistry registry;
    registry.scan({dir});
    CHECK(registry.plugins().empty());
    const auto* r = refused(registry, "marker_extension.so");
    REQUIRE(r);
    CHECK(r->reason.find("writable by everyone (mode 0777)") != std::string::npos);
    CHECK_THROWS_WITH(registry.find("marker_extension", LOCI_PLUGIN_EXTENSION),
                      Catch::Contains("marker_extension.so was refused") && Catch::Contains("writable by everyone"));
  }
  fs::permissions(dir, fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec | fs::perms::others_read |
                           fs::perms::others_exec);
  fs::permissions(dir / "marker_extension.so", fs::perms::others_write, fs::perm_options::add);
  {
    loci::plugins::PluginRegistry registry;
    registry.scan({dir});
    const auto* r = refused(registry, "marker_extension.so");
    REQUIRE(r);
    CHECK(r->reason.find("it is writable by everyone") != std::string::npos);
  }
  CHECK_FALSE(markers.ran("marker_extension"));
  fs::remove_all(dir);
}

TEST_CASE("a plugin name two libraries provide is an error naming both, unless plugin_override picks the first") {
  loci::plugins::PluginRegistry registry;
  registry.scan({LOCI_FIXTURE_PLUGIN_DIR, LOCI_FIXTURE_DUPLICATE_DIR});
  CHECK_THROWS_WITH(registry.find("echo_fixture", LOCI_PLUGIN_GENERATOR),
                    Catch::Contains("provided by both") && Catch::Contains("fixtures/echo_fixture.so") &&
                        Catch::Contains("fixtures_duplicate/echo_fixture_copy.so") &&
                        Catch::Contains("plugin_override"));
  loci::plugins::PluginRegistry chosen;
  chosen.scan({LOCI_FIXTURE_PLUGIN_DIR, LOCI_FIXTURE_DUPLICATE_DIR}, {"echo_fixture"});
  CHECK(chosen.find("echo_fixture", LOCI_PLUGIN_GENERATOR).file.filename() == "echo_fixture.so");
}

TEST_CASE("a file that is not a shared library is refused - not a crash") {
  const fs::path dir = fs::temp_directory_path() / "loci-test-garbage-plugin";
  fs::create_directories(dir);
  std::ofstream(dir / "garbage.so") << "this is not ELF";
  loci::plugins::PluginRegistry registry;
  registry.scan({dir});
  REQUIRE(registry.refused().size() == 1);
  CHECK(registry.refused()[0].reason.find("not a shared library") != std::string::npos);
  fs::remove_all(dir);
}

TEST_CASE("a loaded generator is created - configured with its resolved schema - and fills samples") {
  loci::plugins::PluginRegistry registry;
  registry.scan({LOCI_FIXTURE_PLUGIN_DIR});
  const auto& rec = registry.find("echo_fixture", LOCI_PLUGIN_GENERATOR);
  const auto schema = rec.schema();
  CHECK(schema.has("seed"));    // the shared vocabulary
  CHECK(schema.has("tokens"));  // the plugin's own key
  auto raw = loci::config::Node::map();
  raw.set("generator", loci::config::Node::scalar("echo_fixture"));
  raw.set("out", loci::config::Node::scalar("somewhere"));
  raw.set("tokens", loci::config::Node::scalar("3"));
  const auto resolved = schema.resolve(raw);

  auto gen = registry.make_generator("echo_fixture");
  gen->configure(resolved);
  REQUIRE(gen->layout().sample_arrays.size() == 1);
  std::vector<std::int64_t> buf(3);
  loci::datasets::SampleSlots slots(&gen->layout().sample_arrays, {buf.data()});
  gen->fill({"train", 7, 0}, slots);
  CHECK(buf == std::vector<std::int64_t>{12, 12, 12});
}

TEST_CASE("asking for a plugin that is not there suggests the nearest name") {
  loci::plugins::PluginRegistry registry;
  registry.scan({LOCI_FIXTURE_PLUGIN_DIR});
  CHECK_THROWS_WITH(registry.find("echo_fixtur", LOCI_PLUGIN_GENERATOR),
                    "no generator plugin named 'echo_fixtur' (did you mean 'echo_fixture'?); searched " +
                        std::string(LOCI_FIXTURE_PLUGIN_DIR) +
                        " (add its folder with `plugin_path:` or LOCI_PLUGIN_PATH)");
  CHECK_THROWS_AS(registry.make_trainer("echo_fixture"), loci::UserError);
}
