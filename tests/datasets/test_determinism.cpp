// Sample i depends only on (seed, i): not on thread count, shard size or chunking.
#include <catch2/catch.hpp>

#include "datasets/generate.hpp"
#include "datasets/reader.hpp"
#include "synthetic_source.hpp"
#include "test_util.hpp"

using namespace loci;

TEST_CASE("1 or 2 threads and two shard sizes give the same samples", "[datasets][determinism]") {
  const auto dir = test::fresh_dir("determinism");
  const test::SyntheticSource src;

  auto one = test::small_options(dir / "one-thread");
  one.threads = 1;
  auto two = test::small_options(dir / "two-threads");
  two.threads = 2;
  auto other = test::small_options(dir / "two-threads-7-per-shard");
  other.threads = 2;
  other.samples_per_shard = 7;
  other.chunk_samples = 3;
  for (const auto* o : {&one, &two, &other}) datasets::generate_dataset(src, *o);

  const auto a = test::read_everything(datasets::Dataset::open(one.out));
  const auto b = test::read_everything(datasets::Dataset::open(two.out));
  const auto c = test::read_everything(datasets::Dataset::open(other.out));
  CHECK(a.size() == 2 * (src.layout().sample_arrays.size() + 1));
  CHECK(a == b);
  CHECK(a == c);

  // Same plan, different thread count: the files themselves are identical, so are their checksums.
  CHECK(test::slurp(one.out / "index.json") == test::slurp(two.out / "index.json"));

  // A different seed changes the samples.
  auto reseeded = test::small_options(dir / "seed-8");
  reseeded.seed = 8;
  datasets::generate_dataset(src, reseeded);
  const auto d = test::read_everything(datasets::Dataset::open(reseeded.out));
  CHECK(a.at("train/noise") != d.at("train/noise"));
  CHECK(a.at("train/index") == d.at("train/index"));
}

TEST_CASE("created comes from the option or else SOURCE_DATE_EPOCH", "[datasets][determinism]") {
  const auto dir = test::fresh_dir("created");
  const test::SyntheticSource src;
  auto o = test::small_options(dir / "ds");
  o.created.clear();
  o.splits = {{"train", 3}};
  ::setenv("SOURCE_DATE_EPOCH", "86400", 1);
  datasets::generate_dataset(src, o);
  ::unsetenv("SOURCE_DATE_EPOCH");
  const auto ds = datasets::Dataset::open(o.out);
  CHECK(ds.index().created == "1970-01-02T00:00:00Z");
  CHECK(std::get<std::string>(ds.attributes().at("created")) == "1970-01-02T00:00:00Z");
}
