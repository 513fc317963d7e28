#include <catch2/catch.hpp>

#include <fstream>

#include "plugins/api/error.hpp"
#include "plugins/api/plugin_loader.hpp"

namespace fs = std::filesystem;

namespace {
const loci::RefusedPlugin* refused(const loci::PluginRegistry& r, const std::string& file) {
  for (const auto& x : r.refused())
    if (x.file.filename() == file) return &x;
  return nullptr;
}
}  // namespace

TEST_CASE("the host lists good plugins and refuses bad ones with a reason naming the file") {
  loci::PluginRegistry registry;
  registry.scan({LOCI_FIXTURE_PLUGIN_DIR});

  REQUIRE(registry.plugins().size() == 1);
  const auto& echo = registry.plugins().front();
  CHECK(echo.name == "echo_fixture");
  CHECK(echo.version == "1.2.3");
  CHECK(std::string(echo.kind_name()) == "generator");
  CHECK(echo.file.filename() == "echo_fixture.so");  // sorted scan: the first of two same-named libraries wins

  const auto* dup = refused(registry, "echo_fixture_copy.so");
  REQUIRE(dup);
  CHECK(dup->reason.find("duplicate plugin name 'echo_fixture'") != std::string::npos);
  CHECK(dup->reason.find("echo_fixture.so") != std::string::npos);

  const auto* abi = refused(registry, "bad_abi_plugin.so");
  REQUIRE(abi);
  CHECK(abi->reason.find("built for plugin ABI " + std::to_string(loci::kPluginAbi + 1)) != std::string::npos);

  const auto* none = refused(registry, "no_entry_library.so");
  REQUIRE(none);
  CHECK(none->reason.find("no entry point 'loci_plugin_entry'") != std::string::npos);
}

TEST_CASE("a file that is not a shared library is refused - not a crash") {
  const fs::path dir = fs::temp_directory_path() / "loci-test-garbage-plugin";
  fs::create_directories(dir);
  std::ofstream(dir / "garbage.so") << "this is not ELF";
  loci::PluginRegistry registry;
  registry.scan({dir});
  REQUIRE(registry.refused().size() == 1);
  CHECK(registry.refused()[0].reason.find("cannot load") != std::string::npos);
  fs::remove_all(dir);
}

TEST_CASE("a loaded generator is created - configured with its resolved schema - and fills samples") {
  loci::PluginRegistry registry;
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
  loci::data::SampleSlots slots(&gen->layout().sample_arrays, {buf.data()});
  gen->fill({"train", 7, 0}, slots);
  CHECK(buf == std::vector<std::int64_t>{12, 12, 12});
}

TEST_CASE("asking for a plugin that is not there suggests the nearest name") {
  loci::PluginRegistry registry;
  registry.scan({LOCI_FIXTURE_PLUGIN_DIR});
  CHECK_THROWS_WITH(registry.find("echo_fixtur", LOCI_PLUGIN_GENERATOR),
                    "no generator plugin named 'echo_fixtur' (did you mean 'echo_fixture'?)");
  CHECK_THROWS_AS(registry.make_trainer("echo_fixture"), loci::UserError);
}
