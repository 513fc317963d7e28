// The streaming reader: every sample once per epoch, a new order each epoch, the same order for the same
// (seed, epoch), and batches that hold exactly what random access reads.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstring>
#include <numeric>

#include "datasets/batch_stream.hpp"
#include "datasets/generate.hpp"
#include "synthetic_source.hpp"
#include "test_util.hpp"

using namespace loci;

namespace {

const datasets::Dataset& streamed() {
  static const datasets::Dataset ds = [] {
    auto o = test::small_options(test::fresh_dir("stream") / "ds");
    o.splits = {{"train", 103}, {"test", 9}};
    o.samples_per_shard = 20;
    o.chunk_samples = 5;
    datasets::generate_dataset(test::SyntheticSource(), o);
    return datasets::Dataset::open(o.out);
  }();
  return ds;
}

std::vector<std::int64_t> epoch_ids(std::uint64_t seed, std::int64_t epoch, std::int64_t batch = 8) {
  datasets::BatchStream s(streamed(), datasets::BatchStreamOptions("train", {"index"}, batch).seed(seed).epoch(epoch));
  std::vector<std::int64_t> ids;
  datasets::Batch b;
  while (s.next(b)) ids.insert(ids.end(), b.sample_ids.begin(), b.sample_ids.end());
  return ids;
}

}  // namespace

TEST_CASE("each epoch visits every sample exactly once", "[datasets][stream]") {
  for (std::int64_t epoch : {0, 1, 5}) {
    auto ids = epoch_ids(3, epoch);
    REQUIRE(ids.size() == 103);
    std::sort(ids.begin(), ids.end());
    std::vector<std::int64_t> all(103);
    std::iota(all.begin(), all.end(), 0);
    CHECK(ids == all);
  }
}

TEST_CASE("the order depends on seed and epoch and on nothing else", "[datasets][stream]") {
  const auto a = epoch_ids(3, 0), b = epoch_ids(3, 1), c = epoch_ids(4, 0);
  CHECK(a != b);
  CHECK(a != c);
  CHECK(epoch_ids(3, 0) == a);
  CHECK(epoch_ids(3, 0, 7) == a);  // batch size cuts the order, it does not change it
  datasets::BatchStream s(streamed(), datasets::BatchStreamOptions("train", {"index"}, 8).seed(3).epoch(1));
  CHECK(s.order() == b);
  CHECK(s.batches() == 13);

  // Shuffled within windows, not only chunk by chunk: few neighbours in the order are neighbours in the file.
  std::int64_t runs = 0;
  for (std::size_t i = 1; i < a.size(); ++i) runs += a[i] == a[i - 1] + 1;
  CHECK(runs < 20);

  datasets::BatchStream plain(streamed(), datasets::BatchStreamOptions("train", {"index"}, 8).shuffle(false));
  const auto in_order = plain.order();
  CHECK(std::is_sorted(in_order.begin(), in_order.end()));
}

TEST_CASE("batches hold what random access reads", "[datasets][stream]") {
  const auto& ds = streamed();
  datasets::BatchStream s(
      ds, datasets::BatchStreamOptions("train", {"tokens", "label", "noise"}, 16).seed(9).epoch(2).prefetch_batches(2));
  datasets::Batch b;
  std::int64_t batches = 0, samples = 0;
  while (s.next(b)) {
    ++batches;
    samples += b.size;
    REQUIRE(b.arrays.size() == 3);
    REQUIRE(b.sample_ids.size() == static_cast<std::size_t>(b.size));
    for (std::int64_t i = 0; i < b.size; ++i) {
      const std::int64_t id = b.sample_ids[static_cast<std::size_t>(i)];
      const auto tokens = ds.read<std::uint8_t>("train", "tokens", id, 1);
      const auto label = ds.read<std::int32_t>("train", "label", id, 1);
      const auto noise = ds.read<float>("train", "noise", id, 1);
      CHECK(std::memcmp(b.data<std::uint8_t>(0) + i * 18, tokens.data(), 18) == 0);
      CHECK(b.data<std::int32_t>(1)[i] == label[0]);
      CHECK(std::memcmp(b.data<float>(2) + i * 12, noise.data(), 12 * sizeof(float)) == 0);
    }
  }
  CHECK(batches == 7);  // 6 of 16 and one of 7
  CHECK(samples == 103);

  datasets::BatchStream dropped(ds, datasets::BatchStreamOptions("train", {"label"}, 16).drop_last(true));
  std::int64_t n = 0;
  while (dropped.next(b)) n += b.size;
  CHECK(n == 96);
  CHECK(dropped.batches() == 6);
}

TEST_CASE("ranks split every global batch between them and take the same number of steps", "[datasets][stream]") {
  // 103 samples in batches of 17: six of 17 and a final one of 1, so one rank's last part is empty.
  auto batches_of = [](int rank, int ranks) {
    datasets::BatchStream s(
        streamed(), datasets::BatchStreamOptions("train", {"index"}, 17).seed(5).epoch(3).rank(rank).ranks(ranks));
    std::vector<datasets::Batch> out;
    datasets::Batch b;
    while (s.next(b)) out.push_back(b);
    return out;
  };
  const auto whole = batches_of(0, 1), first = batches_of(0, 2), second = batches_of(1, 2);
  REQUIRE(whole.size() == 7);
  REQUIRE(first.size() == 7);
  REQUIRE(second.size() == 7);
  for (std::size_t k = 0; k < whole.size(); ++k) {
    auto joined = first[k].sample_ids;
    joined.insert(joined.end(), second[k].sample_ids.begin(), second[k].sample_ids.end());
    CHECK(joined == whole[k].sample_ids);
    CHECK(first[k].global_size == whole[k].size);
    CHECK(second[k].offset == first[k].size);
    CHECK(first[k].arrays[0].size() == static_cast<std::size_t>(first[k].size) * sizeof(std::int64_t));
  }
  CHECK(first[0].size == 8);
  CHECK(second[0].size == 9);
  CHECK(first.back().size == 0);  // the final batch of one sample goes to the second rank
  CHECK(second.back().size == 1);

  datasets::BatchStream s(streamed(),
                          datasets::BatchStreamOptions("train", {"index"}, 17).seed(5).epoch(3).rank(1).ranks(2));
  std::vector<std::int64_t> ids;
  for (const auto& b : second) ids.insert(ids.end(), b.sample_ids.begin(), b.sample_ids.end());
  CHECK(s.order() == ids);
  CHECK(s.batches() == 7);
  CHECK_THROWS(datasets::BatchStream(streamed(), datasets::BatchStreamOptions("train", {"index"}, 4).rank(2).ranks(2)));
}

TEST_CASE("a stream abandoned half-way stops cleanly and bad requests are refused", "[datasets][stream]") {
  {
    datasets::BatchStream s(streamed(), datasets::BatchStreamOptions("train", {"tokens"}, 4).prefetch_batches(1));
    datasets::Batch b;
    REQUIRE(s.next(b));
  }
  CHECK_THROWS_WITH(datasets::BatchStream(streamed(), datasets::BatchStreamOptions("train", {"nope"}, 4)),
                    Catch::Contains("no array 'nope'"));
  CHECK_THROWS_WITH(datasets::BatchStream(streamed(), datasets::BatchStreamOptions("train", {"positions"}, 4)),
                    Catch::Contains("not per-sample"));
  CHECK_THROWS_WITH(datasets::BatchStream(streamed(), datasets::BatchStreamOptions("valid", {"tokens"}, 4)),
                    Catch::Contains("no split 'valid'"));
}
