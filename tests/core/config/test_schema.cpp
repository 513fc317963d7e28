#include <catch2/catch.hpp>

#include <fstream>
#include <iterator>

#include "core/config/fail_at.hpp"
#include "core/config/schema.hpp"
#include "core/config/yaml_io.hpp"
#include "core/error.hpp"
#include "tests/support/temp_files.hpp"

using namespace loci::config;

namespace {
const char* kSchema = R"(
seed: {type: int, default: 0, min: 0, doc: "seed"}
out: {type: path, required: true, doc: "where to write"}
splits: {type: map, of: int, min: 0, default: {train: 100, test: 10}, doc: "split sizes"}
compression: {type: enum, values: [gzip, none], default: gzip, doc: "compression"}
lst:
  n: {type: int, default: 4, min: 3, max: 9, doc: "grid size"}
  min_jaccard: {type: float, default: 0.8, min: 0, max: 1, doc: "distance"}
  boxes: {type: bool, default: false, doc: "sudoku"}
  mix: {type: list, of: float, default: [1, 1, 1], doc: "class weights"}
)";

struct Fixture {
  loci::test::TempDir dir;
  Schema schema = Schema::parse(kSchema, "test schema");
  Node resolve_text(const std::string& text, const std::vector<std::string>& overrides = {}) {
    path = dir.write("c.yaml", text);
    return schema.resolve(load_file(path), overrides);
  }
  std::string path;
};
}  // namespace

TEST_CASE_METHOD(Fixture, "defaults fill every key the file leaves out") {
  const Node n = resolve_text("out: data\n");
  CHECK(n.at("seed").as_int() == 0);
  CHECK(n.at("lst.n").as_int() == 4);
  CHECK(n.at("lst.min_jaccard").as_double() == Approx(0.8));
  CHECK(n.at("splits.test").as_int() == 10);
}

TEST_CASE_METHOD(Fixture, "precedence: defaults < file < overrides - and a file's map replaces the default map") {
  const Node n = resolve_text("out: data\nseed: 4\nsplits: {train: 7}\nlst: {n: 5}\n", {"lst.n=6"});
  CHECK(n.at("seed").as_int() == 4);
  CHECK(n.at("lst.n").as_int() == 6);
  CHECK(n.at("lst.boxes").as_bool() == false);  // the group merged, not replaced
  CHECK(n.at("splits.train").as_int() == 7);
  CHECK(n.at("splits").find("test") == nullptr);
  // An override changes one entry of the resolved map and leaves the rest.
  const Node m = resolve_text("out: data\n", {"splits.train=600"});
  CHECK(m.at("splits.train").as_int() == 600);
  CHECK(m.at("splits.test").as_int() == 10);
}

TEST_CASE_METHOD(Fixture, "unknown key: file:line:col and the nearest valid key") {
  CHECK_THROWS_WITH(resolve_text("out: data\nseeed: 3\n"), path + ":2:1: unknown key 'seeed' (did you mean 'seed'?)");
  CHECK_THROWS_WITH(resolve_text("out: data\nlst:\n  boxs: true\n"),
                    path + ":3:3: unknown key 'lst.boxs' (did you mean 'lst.boxes'?)");
}

TEST_CASE_METHOD(Fixture, "wrong type: position and what was expected") {
  CHECK_THROWS_WITH(resolve_text("out: data\nseed: abc\n"), path + ":2:7: 'seed': expected an integer >= 0, got 'abc'");
  CHECK_THROWS_WITH(resolve_text("out: data\nlst:\n  boxes: 3\n"),
                    path + ":3:10: 'lst.boxes': expected true or false, got '3'");
  CHECK_THROWS_WITH(resolve_text("out: data\nlst: 3\n"), path + ":2:6: 'lst': expected a mapping of keys, got '3'");
  CHECK_THROWS_WITH(resolve_text("out: data\nsplits: [1, 2]\n"),
                    path + ":2:9: 'splits': expected a mapping of names to int, got a list");
  CHECK_THROWS_WITH(resolve_text("out: data\nlst: {mix: [1, x, 1]}\n"),
                    path + ":2:16: 'lst.mix[1]': expected a number, got 'x'");
}

TEST_CASE_METHOD(Fixture, "out of range and unknown choices") {
  CHECK_THROWS_WITH(resolve_text("out: data\nlst: {n: 12}\n"),
                    path + ":2:10: 'lst.n': expected an integer in [3, 9], got '12'");
  CHECK_THROWS_WITH(resolve_text("out: data\nsplits: {train: -1}\n"),
                    path + ":2:17: 'splits.train': expected an integer >= 0, got '-1'");
  CHECK_THROWS_WITH(resolve_text("out: data\ncompression: gzp\n"),
                    path + ":2:14: 'compression': expected one of gzip, none, got 'gzp' (did you mean 'gzip'?)");
}

TEST_CASE_METHOD(Fixture, "a path past Linux's limits is refused at the key, not at the first failing open") {
  CHECK_THROWS_WITH(resolve_text("out: data\n", {"out=" + std::string(300, 'a')}),
                    Catch::Contains("'out': expected a path") && Catch::Contains("at most 255 characters"));
  std::string deep;
  for (int i = 0; i < 500; ++i) deep += "/abcdefghi";
  CHECK_THROWS_WITH(resolve_text("out: data\n", {"out=" + deep}), Catch::Contains("shorter than 4096 characters"));
  CHECK(resolve_text("out: data\n", {"out=" + std::string(255, 'a')}).at("out").text().size() == 255);
}

TEST_CASE_METHOD(Fixture, "a missing required key names the key and what it is for") {
  CHECK_THROWS_WITH(resolve_text("seed: 1\n"), Catch::Contains("missing required key 'out' (where to write)"));
}

TEST_CASE_METHOD(Fixture, "errors in overrides point at the command line") {
  CHECK_THROWS_WITH(resolve_text("out: data\n", {"lst.n=two"}),
                    "command line 'lst.n=two': 'lst.n': expected an integer in [3, 9], got 'two'");
  CHECK_THROWS_WITH(resolve_text("out: data\n", {"sed=1"}),
                    "command line 'sed=1': unknown key 'sed' (did you mean 'seed'?)");
}

TEST_CASE("extend puts a plugin's fields on top of the shared ones") {
  Schema base =
      Schema::parse("seed: {type: int, default: 0}\nsplits: {type: map, of: int, default: {train: 1}}\n", "b");
  base.extend(Schema::parse(
      "splits: {type: map, of: int, default: {train: 8100, test: 900}}\nn: {type: int, default: 4}\n", "p"));
  const Node d = base.defaults();
  CHECK(d.at("splits.train").as_int() == 8100);
  CHECK(d.at("n").as_int() == 4);
  CHECK(base.has("seed"));
  CHECK_FALSE(base.has("nope"));
  CHECK(base.describe().find("n  [int] = 4") != std::string::npos);
}

TEST_CASE("a malformed schema is refused") {
  CHECK_THROWS_WITH(Schema::parse("a: {type: integer}\n", "s"), Catch::Contains("unknown schema type 'integer'"));
  CHECK_THROWS_WITH(Schema::parse("a: {type: enum}\n", "s"), Catch::Contains("needs 'values'"));
  CHECK_THROWS_WITH(Schema::parse("a: {type: int, dflt: 1}\n", "s"),
                    Catch::Contains("unknown schema attribute 'dflt'"));
}

TEST_CASE("the schema example in docs/EXTENDING.md parses and checks as the page says") {
  std::ifstream page(std::string(LOCI_SOURCE_DIR) + "/docs/EXTENDING.md");
  const std::string text((std::istreambuf_iterator<char>(page)), {});
  const auto section = text.find("## The schema language");
  REQUIRE(section != std::string::npos);
  const auto open = text.find("```yaml\n", section);
  REQUIRE(open != std::string::npos);
  const auto close = text.find("```", open + 8);
  const Schema s = Schema::parse(text.substr(open + 8, close - open - 8), "docs/EXTENDING.md");
  const Node r = s.resolve(Node::map());
  CHECK(r.at("grid").at("side").as_int() == 4);
  CHECK(r.at("splits").at("train").as_int() == 100);
  CHECK(r.at("atlas").is_null());
  CHECK(s.outside_identity() == std::vector<std::string>{"threads"});
  CHECK_THROWS_WITH(s.resolve(Node::map(), {"grid.side=1"}), Catch::Contains("grid.side"));
  CHECK_THROWS_WITH(s.resolve(Node::map(), {"scales=[0.5,-1]"}), Catch::Contains("scales"));
  CHECK_THROWS_WITH(s.resolve(Node::map(), {"noise=uniform"}), Catch::Contains("gaussian"));
}

TEST_CASE_METHOD(Fixture,
                 "a key's position outlives the parsed config: what the user wrote, the command line, or defaults") {
  KeyMarks marks;
  {
    const Node n = resolve_text("out: data\nlst:\n  n: 5\n", {"seed=3"});
    marks = KeyMarks(n);
  }  // the parsed config is gone; the positions stay
  CHECK(marks.of("lst.n").str() == path + ":3:6");
  CHECK(marks.of("out").str() == path + ":1:6");
  CHECK(marks.of("seed").str().find("seed=3") != std::string::npos);
  CHECK(marks.of("lst.min_jaccard").str() == "defaults");
  CHECK(marks.of("no.such.key").str() == "config");
  try {
    marks.fail("lst.n", "lst.n 5 is too large for this dataset");
    FAIL("no error");
  } catch (const loci::UserError& e) {
    CHECK(std::string(e.what()) == path + ":3:6: lst.n 5 is too large for this dataset");
  }
}
