// Options declared once (core/config/options.hpp): what a declaration puts in the schema and what the reader
// stores, for the kinds of key the plugins' tables use.
#include <catch2/catch.hpp>

#include "core/common_options.hpp"
#include "core/config/options.hpp"
#include "core/config/schema.hpp"
#include "core/config/yaml_io.hpp"
#include "core/error.hpp"

using namespace loci::config;

namespace {

enum class Fill { square, row };

struct Opts {
  Fill fill = Fill::row;
  std::string out;
  std::vector<std::string> search;
  Node stage;
};

OptionTable<Opts> table() {
  OptionTable<Opts> t;
  t.add_choice(
       "fill", [](Opts& o) -> Fill& { return o.fill; },
       std::vector<std::pair<std::string, Fill>>{{"square", Fill::square}, {"row", Fill::row}})
      .doc("how to fill");
  t.add("out", [](Opts& o) -> std::string& { return o.out; }).path().required().doc("where to write");
  t.add("search", [](Opts& o) -> std::vector<std::string>& { return o.search; }).path().doc("folders");
  t.add("stage", [](Opts& o) -> Node& { return o.stage; }).any().doc("anything");
  return t;
}

Opts read(const std::string& yaml) {
  const auto t = table();
  const Schema schema = Schema::parse(t.schema(), "test");
  Opts o;
  t.read(schema.resolve(parse_yaml(yaml, "test.yaml")), o);
  return o;
}

}  // namespace

TEST_CASE("a typed choice offers its names, defaults to the member's and stores the constant") {
  const std::string schema = table().schema();
  CHECK(schema.find("values: [square, row]") != std::string::npos);
  CHECK(schema.find("default: row") != std::string::npos);
  CHECK(read("out: x").fill == Fill::row);
  CHECK(read("out: x\nfill: square").fill == Fill::square);
  CHECK_THROWS_WITH(read("out: x\nfill: diagonal"), Catch::Contains("fill") && Catch::Contains("square"));
}

TEST_CASE("required, path lists and any: what the schema says and what a config must give") {
  CHECK_THROWS_WITH(read("fill: row"), Catch::Contains("missing required key 'out'"));
  const Opts o = read("out: here\nsearch: [a, b]\nstage: {x: 1}");
  CHECK(o.out == "here");
  CHECK(o.search == std::vector<std::string>{"a", "b"});
  CHECK(o.stage.is_map());
  CHECK(read("out: here").stage.is_null());
  const std::string schema = table().schema();
  CHECK(schema.find("of: path") != std::string::npos);
  CHECK(schema.find("type: any") != std::string::npos);
}

TEST_CASE("the shared generator and trainer keys: where and how a thing is written is outside identity") {
  CHECK(loci::generator_common_schema().outside_identity() ==
        std::vector<std::string>{"out", "threads", "plugin_path", "plugin_override", "license"});
  CHECK(loci::trainer_common_schema().outside_identity() ==
        std::vector<std::string>{"data", "out", "plugin_path", "plugin_override"});
  // The defaults a config leaves out, from the declaration.
  const Node resolved = loci::generator_common_schema().resolve(parse_yaml("generator: g\nout: d", "g.yaml"));
  loci::GeneratorCommon g;
  loci::generator_common_options().read(resolved, g);
  CHECK(g.samples_per_shard == 1000);
  CHECK(g.splits == Entries<std::int64_t>{{"train", 1000}, {"test", 100}});
  CHECK(g.compression == loci::Compression::gzip);
  CHECK(g.created == "unrecorded");
}
