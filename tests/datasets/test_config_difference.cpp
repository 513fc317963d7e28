#include <catch2/catch.hpp>

#include "datasets/config_difference.hpp"

using loci::datasets::config_difference;

TEST_CASE("a config difference names each differing key with both values, a few at most") {
  const std::string had = "seed: 7\nsplits: {train: 600, test: 100}\nlst: {dims: [3, 3]}\n";
  CHECK(config_difference(had, had).empty());
  CHECK(config_difference(had, "seed: 8\nsplits: {train: 600, test: 100}\nlst: {dims: [3, 3]}\n") == "seed 7 vs 8");
  CHECK(config_difference(had, "seed: 7\nsplits: {train: 64, test: 100}\nlst: {dims: [4, 4]}\n") ==
        "lst.dims [3, 3] vs [4, 4], splits.train 600 vs 64");
  CHECK(config_difference(had, "seed: 7\nsplits: {train: 600, test: 100}\nlst: {dims: [3, 3]}\nnew: 1\n") ==
        "new (absent) vs 1");
  CHECK(config_difference("a: 1\nb: 1\nc: 1\nd: 1\n", "a: 2\nb: 2\nc: 2\nd: 2\n", 2) ==
        "a 1 vs 2, b 1 vs 2 and 2 more");
  // A damaged record is not YAML: no keys to name, the caller says the configuration differs.
  CHECK(config_difference("a: [1", "a: 1\n").empty());
}
