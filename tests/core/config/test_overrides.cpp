#include <catch2/catch.hpp>

#include "core/config/overrides.hpp"
#include "core/config/yaml_io.hpp"
#include "core/error.hpp"

using namespace loci::config;

TEST_CASE("overrides are typed as YAML scalars") {
  Node n = parse_yaml("seed: 1\nmodel: {pe: {type: learned}}\n", "t");
  apply_overrides(n, {"seed=3", "model.pe.init.std=0.2", "name=\"3\"", "flag=true", "dims=[2, 3]"});
  CHECK(n.at("seed").as_int() == 3);
  CHECK(n.at("model.pe.init.std").as_double() == Approx(0.2));
  CHECK(n.at("model.pe.type").as_string() == "learned");  // siblings survive
  CHECK_FALSE(n.at("name").to_int().has_value());         // quoted stays a string
  CHECK(n.at("flag").as_bool());
  REQUIRE(n.at("dims").is_sequence());
  CHECK(n.at("dims").items()[1].as_int() == 3);
}

TEST_CASE("a later override wins over an earlier one and over the file") {
  Node n = parse_yaml("seed: 1\n", "t");
  apply_overrides(n, {"seed=2", "seed=5"});
  CHECK(n.at("seed").as_int() == 5);
}

TEST_CASE("an override's value remembers it came from the command line") {
  Node n = parse_yaml("seed: 1\n", "t");
  apply_overrides(n, {"seed=x"});
  CHECK(n.at("seed").mark().str() == "command line 'seed=x'");
  CHECK_THROWS_WITH(n.at("seed").as_int(), "command line 'seed=x': expected an integer, got 'x'");
}

TEST_CASE("malformed overrides are errors") {
  Node n = parse_yaml("seed: 1\n", "t");
  CHECK_THROWS_WITH(apply_overrides(n, {"seed"}), Catch::Contains("key.path=value"));
  CHECK_THROWS_WITH(apply_overrides(n, {"a..b=1"}), Catch::Contains("not a key path"));
  CHECK_THROWS_AS(apply_overrides(n, {"a=[1,"}), loci::UserError);
}

TEST_CASE(
    "an override key of any length or depth is checked without recursion, and a long one is refused in one line") {
  Node n = parse_yaml("seed: 1\n", "t");
  // Tens of thousands of characters or dotted parts overflowed std::regex's recursion (SIGSEGV).
  for (const std::string& key : {std::string(60000, 'a'), [] {
                                   std::string k = "a";
                                   for (int i = 0; i < 12000; ++i) k += ".a";
                                   return k;
                                 }()}) {
    try {
      apply_overrides(n, {key + "=1"});
      FAIL("a key of " << key.size() << " characters was accepted");
    } catch (const loci::UserError& e) {
      const std::string message = e.what();
      CHECK_THAT(message, Catch::Contains("a key path of " + std::to_string(key.size()) +
                                          " characters; keys are at "
                                          "most 256"));
      CHECK(message.size() < 300);
      CHECK(message.find('\n') == std::string::npos);
    }
  }
  // The hand-written check keeps the regex's rules.
  CHECK_NOTHROW(apply_overrides(n, {"a-b.c_d.e1=1", "_x.0y=2"}));
  for (const char* bad : {"1a=1", "a.-b=1", "a.=1", ".a=1", "a b=1", "a.b.=1"})
    CHECK_THROWS_WITH(apply_overrides(n, {bad}), Catch::Contains("not a key path"));
}

TEST_CASE("a range near 2^63 is named as past the exact integers, not as empty") {
  CHECK_THROWS_WITH(expand_sweep({"seed=range(9223372036854775800,9223372036854775807)"}),
                    Catch::Contains("range() integers must lie within +-2^53"));
}

TEST_CASE("sweeps expand to the cartesian product - the last key fastest") {
  const auto points = expand_sweep({"model.pe.init.std=0.1,0.2", "seed=range(0,3)"});
  REQUIRE(points.size() == 6);
  CHECK(points[0] == std::vector<std::string>{"model.pe.init.std=0.1", "seed=0"});
  CHECK(points[1] == std::vector<std::string>{"model.pe.init.std=0.1", "seed=1"});
  CHECK(points[5] == std::vector<std::string>{"model.pe.init.std=0.2", "seed=2"});
}

TEST_CASE("a sweep bounded in runs: long lists that multiply past memory are one error, not a hang") {
  // The fuzzer's find: many short lists multiplied to 2^N points; here two ranges would ask for 10^6.
  const std::vector<std::string> huge{"a=range(0,1000)", "b=range(0,1000)", "c=range(0,1000)", "d=range(0,1000)"};
  CHECK_THROWS_WITH(expand_sweep(huge),
                    Catch::Contains("'b=range(0,1000)': the sweep would make more than 100000 runs"));
  CHECK(expand_sweep({"a=range(0,1000)", "b=range(0,100)"}).size() == 100000);
  // The fuzzer's find: twenty three-valued axes were built to 3^10 points before the eleventh was refused (seconds);
  // now the size is known before any point is built. The error names the axis that crosses the bound.
  std::vector<std::string> twenty;
  for (int i = 0; i < 20; ++i) twenty.push_back("k" + std::to_string(i) + "=range(0,3)");
  CHECK_THROWS_WITH(expand_sweep(twenty),
                    Catch::Contains("'k10=range(0,3)': the sweep would make more than 100000 runs"));
  twenty.resize(10);
  CHECK(expand_sweep(twenty).size() == 59049);
  // And every point holds every axis, single values too: 59049 runs of 40 overrides is refused, with the way out.
  for (int i = 0; i < 30; ++i) twenty.push_back("single" + std::to_string(i) + "=1");
  CHECK_THROWS_WITH(expand_sweep(twenty), Catch::Contains("59049 runs of 40 overrides each") &&
                                              Catch::Contains("single values as plain overrides"));
  CHECK(expand_sweep({"a=range(0,1000)", "b=range(0,100)", "c=1", "d=2"}).front() ==
        std::vector<std::string>{"a=0", "b=0", "c=1", "d=2"});
  CHECK_THROWS_WITH(sweep_values("k", "range(0,inf)"), Catch::Contains("finite"));
  CHECK_THROWS_WITH(sweep_values("k", "range(nan,1)"), Catch::Contains("finite"));
  // The fuzzer's find: a start of 5e60 counted -5e60 steps, and that count was cast to a long (undefined). Now its
  // integers are past the exact ones and it is named so before any count.
  CHECK_THROWS_WITH(sweep_values("k", "range(5" + std::string(60, '1') + ",6)"), Catch::Contains("2^53"));
  CHECK_THROWS_WITH(sweep_values("k", "range(5" + std::string(60, '1') + ".5,6)"), Catch::Contains("is empty"));
  CHECK_THROWS_WITH(sweep_values("k", "range(9007199254740990,9007199254741000)"), Catch::Contains("2^53"));
  CHECK(sweep_values("k", "range(-2,1)") == std::vector<std::string>{"-2", "-1", "0"});
}

TEST_CASE("sweep values: brackets and quotes keep their commas - range takes a step and floats") {
  CHECK(sweep_values("k", "[1,2],[3,4]") == std::vector<std::string>{"[1,2]", "[3,4]"});
  CHECK(sweep_values("k", "'a,b',c") == std::vector<std::string>{"'a,b'", "c"});
  CHECK(sweep_values("k", "range(0,10,4)") == std::vector<std::string>{"0", "4", "8"});
  CHECK(sweep_values("k", "range(0.1,0.4,0.1)") == std::vector<std::string>{"0.1", "0.2", "0.3"});
  CHECK(sweep_values("k", "range(5,0,-2)") == std::vector<std::string>{"5", "3", "1"});
  CHECK(sweep_values("k", "single") == std::vector<std::string>{"single"});
  CHECK_THROWS_WITH(sweep_values("k", "range(1)"), Catch::Contains("range() takes"));
  CHECK_THROWS_WITH(sweep_values("k", "a,,b"), Catch::Contains("empty value"));
  CHECK_THROWS_WITH(sweep_values("k", "range(3,1)"), Catch::Contains("is empty"));
}
