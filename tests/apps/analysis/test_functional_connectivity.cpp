// The functional connectivity the analyses compare PEs with, and the truths read from a dataset: FC is the
// Pearson correlation over the training split only (a test split built to disagree never enters it), hops come
// from /adjacency when the dataset stores no /hops, and /hemisphere is the partition.
#include <catch2/catch.hpp>

#include "apps/analysis/dataset_truth.hpp"
#include "apps/analysis/functional_connectivity.hpp"
#include "datasets/generate.hpp"
#include "sim/random/stream.hpp"
#include "tests/support/temp_files.hpp"

using namespace loci;

namespace {

constexpr int kTime = 8;

// Three tokens on a path 0 - 1 - 2. In train token 1 is 2x + 1 and token 2 is -x, x token 0's noise; in test
// token 1 is -x, so an FC that read the test split would not have FC(0, 1) = 1.
class PathSource : public datasets::SampleSource {
 public:
  PathSource() {
    using datasets::ArraySpec;
    using datasets::DType;
    layout_.sample_arrays.push_back(ArraySpec{"activity", DType::f32, {"token", "time"}, {3, kTime}, "activity"});
    layout_.dataset_arrays.push_back(datasets::Array::of(
        ArraySpec{"positions", DType::f32, {"token", "axis"}, {3, 1}, "on a line"}, std::vector<float>{0, 1, 2}));
    layout_.dataset_arrays.push_back(
        datasets::Array::of(ArraySpec{"adjacency", DType::u8, {"token", "token2"}, {3, 3}, "a path"},
                            std::vector<std::uint8_t>{0, 1, 0, 1, 0, 1, 0, 1, 0}));
    layout_.dataset_arrays.push_back(datasets::Array::of(ArraySpec{"hemisphere", DType::u8, {"token"}, {3}, "sides"},
                                                         std::vector<std::uint8_t>{0, 0, 1}));
  }
  const datasets::DatasetLayout& layout() const override { return layout_; }
  void fill(const datasets::SampleKey& key, const datasets::SampleSlots& out) const override {
    auto rng = sim::Rng::stream(key.seed, key.split, static_cast<std::uint64_t>(key.index));
    float* a = out.get<float>(0);
    for (int t = 0; t < kTime; ++t) {
      const double x = rng.normal();
      a[t] = static_cast<float>(x);
      a[kTime + t] = static_cast<float>(key.split == "train" ? 2 * x + 1 : -x);
      a[2 * kTime + t] = static_cast<float>(-x);
    }
  }

 private:
  datasets::DatasetLayout layout_;
};

std::filesystem::path make_dataset(const std::filesystem::path& out) {
  datasets::GenerateOptions o;
  o.out = out;
  o.splits = {{"train", 20}, {"test", 5}};
  o.samples_per_shard = 8;
  o.generator = "path";
  o.generator_version = "1.0.0";
  o.config_yaml = "generator: path\n";
  o.created = "2000-01-01T00:00:00Z";
  o.progress = false;
  datasets::generate_dataset(PathSource(), o);
  return out;
}

}  // namespace

TEST_CASE("Functional connectivity is the Pearson correlation over the training split only") {
  test::TempDir dir;
  const auto ds = datasets::Dataset::open(make_dataset(dir.path() / "d"));
  CHECK(analysis::activity_array(ds, "auto") == "activity");
  CHECK(analysis::activity_array(ds, "missing").empty());
  const Eigen::MatrixXd fc = analysis::functional_connectivity(ds, "train", "activity");
  REQUIRE(fc.rows() == 3);
  CHECK(fc(0, 1) == Approx(1.0).margin(1e-6));
  CHECK(fc(0, 2) == Approx(-1.0).margin(1e-6));
  CHECK(fc(1, 2) == Approx(-1.0).margin(1e-6));
  CHECK(fc(1, 0) == Approx(fc(0, 1)));
  CHECK(fc.diagonal() == Eigen::Vector3d::Ones());
  // The test split's own FC differs: the training-split FC above did not see it.
  CHECK(analysis::functional_connectivity(ds, "test", "activity")(0, 1) == Approx(-1.0).margin(1e-6));
}

TEST_CASE("Dataset truths: hops from the adjacency, the hemisphere partition and the training split's FC") {
  test::TempDir dir;
  analysis::TruthRequest r;
  r.data = make_dataset(dir.path() / "d");
  r.tokens = 3;
  const auto t = analysis::dataset_truth(r);
  CHECK(t.note.empty());
  REQUIRE(t.hops.rows() == 3);
  CHECK(t.hops(0, 1) == 1);
  CHECK(t.hops(0, 2) == 2);
  CHECK(t.partition == std::vector<int>{0, 0, 1});
  CHECK(t.partition_name.find("hemisphere") != std::string::npos);
  CHECK(t.fc_split == "train");
  CHECK(t.fc(0, 1) == Approx(1.0).margin(1e-6));

  r.train_split = "test";  // a run trained on another split: FC follows its training split
  CHECK(analysis::dataset_truth(r).fc(0, 1) == Approx(-1.0).margin(1e-6));
  r.data = dir.path() / "nowhere";
  const auto missing = analysis::dataset_truth(r);
  CHECK(missing.fc.size() == 0);
  CHECK(!missing.note.empty());
}
