#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

#include "core/config/yaml_io.hpp"
#include "core/error.hpp"
#include "tests/support/temp_files.hpp"

using loci::UserError;
using namespace loci::config;

TEST_CASE("include: included files merge in order and the including file wins") {
  loci::test::TempDir dir;
  dir.write("base.yaml", "seed: 1\nsplits: {train: 10, test: 5}\nname: base\n");
  dir.write("more.yaml", "seed: 2\nextra: yes\n");
  const auto top = dir.write("top.yaml", "include: [base.yaml, more.yaml]\nsplits: {train: 99}\nname: top\n");
  const Node n = load_file(top);
  CHECK(n.at("seed").as_int() == 2);           // more.yaml after base.yaml
  CHECK(n.at("name").as_string() == "top");    // the including file last
  CHECK(n.at("splits.train").as_int() == 99);  // maps merge deeply
  CHECK(n.at("splits.test").as_int() == 5);
  CHECK(n.find("include") == nullptr);
}

TEST_CASE("include: a path relative to the including file - and a single name") {
  loci::test::TempDir dir;
  dir.write("sub/common.yaml", "seed: 7\n");
  const auto top = dir.write("sub/top.yaml", "include: common.yaml\n");
  CHECK(load_file(top).at("seed").as_int() == 7);
}

TEST_CASE("include: cycles and missing files are errors naming the file and line") {
  loci::test::TempDir dir;
  const auto a = dir.write("a.yaml", "include: b.yaml\n");
  dir.write("b.yaml", "include: a.yaml\n");
  CHECK_THROWS_WITH(load_file(a), Catch::Contains("include cycle"));
  const auto c = dir.write("c.yaml", "seed: 1\ninclude: nope.yaml\n");
  CHECK_THROWS_WITH(load_file(c), Catch::StartsWith(c + ":2:10: no such file"));
}

TEST_CASE("positions of every node are 1-based line and column") {
  loci::test::TempDir dir;
  const auto f = dir.write("p.yaml", "a:\n  b: 3\n  c: [1, 2]\n");
  const Node n = load_file(f);
  CHECK(n.at("a.b").mark().str() == f + ":2:6");
  CHECK(n.at("a.b").key_mark().str() == f + ":2:3");
  CHECK(n.at("a.c").items()[1].mark().str() == f + ":3:10");
}

TEST_CASE("invalid YAML and duplicate keys are positioned errors") {
  loci::test::TempDir dir;
  const auto bad = dir.write("bad.yaml", "a: [1, 2\n");
  CHECK_THROWS_WITH(load_file(bad), Catch::StartsWith(bad + ":") && Catch::Contains("invalid YAML"));
  const auto dup = dir.write("dup.yaml", "a: 1\na: 2\n");
  CHECK_THROWS_WITH(load_file(dup), Catch::StartsWith(dup + ":2:1: duplicate key 'a'"));
  const auto list = dir.write("list.yaml", "- 1\n- 2\n");
  CHECK_THROWS_WITH(load_file(list), Catch::Contains("must be a mapping"));
}

TEST_CASE("to_yaml writes back what it read - keeping quoted strings strings") {
  const Node n = parse_yaml("a: 1\nb: \"2\"\nc: [x, y]\nd: {e: true}\n", "t");
  const Node again = parse_yaml(to_yaml(n), "t2");
  CHECK(again.at("a").as_int() == 1);
  CHECK_FALSE(again.at("b").to_int().has_value());
  CHECK(again.at("b").as_string() == "2");
  CHECK(again.at("c").items().size() == 2);
  CHECK(again.at("d.e").as_bool());
}

TEST_CASE("an empty mapping clears what an included file set - other mappings merge") {
  loci::test::TempDir dir;
  dir.write("base.yaml", "lst: {imports: {human: builtin}, n: 4}\n");
  const auto top = dir.write("top.yaml", "include: base.yaml\nlst: {imports: {}}\n");
  const Node n = load_file(top);
  CHECK(n.at("lst.imports").entries().empty());
  CHECK(n.at("lst.n").as_int() == 4);
}

TEST_CASE("a map of 100 000 keys reads with every key in order, found, replaced and erased by name") {
  loci::test::TempDir dir;
  std::string text = "m:\n";
  for (int i = 0; i < 100000; ++i) text += "  k" + std::to_string(i) + ": " + std::to_string(i) + "\n";
  Node n = load_file(dir.write("big.yaml", text));
  Node& m = *n.find("m");
  REQUIRE(m.entries().size() == 100000);
  CHECK(m.entries()[99999].first == "k99999");
  CHECK(m.find("k31337")->as_int() == 31337);
  CHECK(m.find("k100000") == nullptr);
  m.set("k5", Node::scalar("five"));
  CHECK(m.entries()[5].second.text() == "five");
  CHECK(m.erase("k3"));
  CHECK(m.find("k3") == nullptr);
  CHECK(m.find("k4")->as_int() == 4);  // positions after an erased key are found anew
  CHECK(m.entries()[3].first == "k4");
  m.set("k3", Node::scalar("back"));
  CHECK(m.entries().back().first == "k3");
  CHECK_THROWS_WITH(load_file(dir.write("dup.yaml", text + "  k7: again\n")), Catch::Contains("duplicate key 'k7'"));
}

TEST_CASE("an alias bomb read through a long include path is bounded by the bytes it would keep") {
  loci::test::TempDir dir;
  // 9 levels of 4 aliases: 4^9 = 262 144 values, under the node limit, each keeping its file's 3 000-character name.
  std::filesystem::path deep = dir.path();
  for (int i = 0; i < 12; ++i) deep /= std::string(240, 'd');
  std::filesystem::create_directories(deep);
  std::string text = "a0: &a0 [x]\n";
  for (int i = 1; i <= 9; ++i) {
    const std::string p = "*a" + std::to_string(i - 1);
    text += "a" + std::to_string(i) + ": &a" + std::to_string(i) + " [" + p + ", " + p + ", " + p + ", " + p + "]\n";
  }
  std::ofstream(deep / "bomb.yaml") << text;
  CHECK_THROWS_WITH(load_file(deep / "bomb.yaml"), Catch::Contains("expands to more than 64 MiB"));
}

TEST_CASE("include: a file met again is resolved once, so a chain of duplicated includes loads in linear work") {
  loci::test::TempDir dir;
  // f0 includes f1 twice, f1 includes f2 twice, ... 31 deep: 2^31 loads if each include were resolved anew.
  for (int i = 0; i < 31; ++i)
    dir.write("f" + std::to_string(i) + ".yaml", "include: [f" + std::to_string(i + 1) + ".yaml, f" +
                                                     std::to_string(i + 1) + ".yaml]\nk" + std::to_string(i) + ": " +
                                                     std::to_string(i) + "\n");
  dir.write("f31.yaml", "seed: 31\n");
  const Node n = load_file(dir.path() / "f0.yaml");
  CHECK(n.at("seed").as_int() == 31);
  CHECK(n.at("k30").as_int() == 30);
  CHECK(n.at("k0").as_int() == 0);
  // The same file reached along two paths of a diamond is merged in both places, as written.
  dir.write("d/common.yaml", "seed: 1\nname: common\n");
  dir.write("d/left.yaml", "include: common.yaml\nname: left\n");
  dir.write("d/right.yaml", "include: common.yaml\nseed: 2\n");
  const Node d = load_file(dir.write("d/top.yaml", "include: [left.yaml, right.yaml]\n"));
  CHECK(d.at("name").as_string() == "common");  // right.yaml's include of common.yaml comes after left's name
  CHECK(d.at("seed").as_int() == 2);
}

TEST_CASE("include: more includes than any config needs are one error naming where, not unbounded work") {
  loci::test::TempDir dir;
  std::string list;
  for (int i = 0; i < 1001; ++i) {
    dir.write("w/" + std::to_string(i) + ".yaml", "k" + std::to_string(i) + ": 1\n");
    list += (i ? ", " : "") + std::to_string(i) + ".yaml";
  }
  const auto top = dir.write("w/top.yaml", "include: [" + list + "]\n");
  CHECK_THROWS_WITH(load_file(top), Catch::Contains("more than 1000 includes in one config"));
}
