// Test data for the dataset tests and their helper program: a small generator with one per-sample array of every
// dtype, two dataset-level arrays and a few attributes. Values come from the sample's own random stream, so any
// sample can be recomputed on its own and compared with what a reader returns.
#pragma once

#include <chrono>
#include <cstring>
#include <filesystem>
#include <thread>

#include "datasets/generate.hpp"
#include "sim/random/stream.hpp"

namespace loci::test {

struct SyntheticOptions {
  int delay_us = 0;         // per sample, to make a run slow enough to kill half-way
  bool label_i64 = false;   // a second layout that differs from the first in one dtype
  bool wide_label = false;  // ... or in one shape
};

class SyntheticSource : public datasets::SampleSource {
 public:
  static constexpr int kTokens = 6;

  explicit SyntheticSource(SyntheticOptions o = {}) : o_(o) {
    using datasets::ArraySpec;
    using datasets::DType;
    auto& s = layout_.sample_arrays;
    s.push_back(ArraySpec{"tokens", DType::u8, {"token", "channel"}, {kTokens, 3}, "token symbols"});
    s.push_back(ArraySpec{"small", DType::i8, {"token"}, {kTokens}, "signed bytes"});
    s.push_back(ArraySpec{"pair16", DType::u16, {"pair"}, {2}, "two uint16"});
    s.push_back(ArraySpec{"scalar16", DType::i16, {}, {}, "one int16"});
    s.push_back(ArraySpec{"count", DType::u32, {"token"}, {kTokens}, "uint32 per token"});
    if (o.wide_label)
      s.push_back(ArraySpec{"label", DType::i32, {"pair"}, {2}, "the answer"});
    else
      s.push_back(ArraySpec{"label", o.label_i64 ? DType::i64 : DType::i32, {}, {}, "the answer"});
    s.push_back(ArraySpec{"hash", DType::u64, {"pair"}, {2}, "uint64 pair"});
    s.push_back(ArraySpec{"index", DType::i64, {}, {}, "the sample's own index"});
    s.push_back(ArraySpec{"noise", DType::f32, {"token", "coord"}, {kTokens, 2}, "float noise per token"});
    s.push_back(ArraySpec{"mean", DType::f64, {"coord"}, {2}, "a float64 pair"});

    std::vector<float> pos;
    for (int t = 0; t < kTokens; ++t) {
      pos.push_back(static_cast<float>(t % 3));
      pos.push_back(static_cast<float>(t / 3));
    }
    layout_.dataset_arrays.push_back(datasets::Array::of(
        ArraySpec{"positions", DType::f32, {"token", "coord"}, {kTokens, 2}, "true grid coordinates"}, pos));
    std::vector<double> w(kTokens * kTokens);
    for (int i = 0; i < kTokens * kTokens; ++i) w[static_cast<std::size_t>(i)] = 0.25 * i;
    layout_.dataset_arrays.push_back(
        datasets::Array::of(ArraySpec{"weights", DType::f64, {"token", "token2"}, {kTokens, kTokens}, "coupling"}, w));
    layout_.text_arrays.push_back({"token_name", "token", names(), "a name per token (UTF-8)"});
    layout_.attributes = {{"grid_size", std::int64_t{3}}, {"rate", 0.5}, {"kind", std::string("synthetic")}};
  }

  const datasets::DatasetLayout& layout() const override { return layout_; }

  // Non-ASCII and empty names too: the reader must hand back every byte.
  static std::vector<std::string> names() { return {"left", "right", "Précentral_G", "", "a b", "x"}; }

  void fill(const datasets::SampleKey& key, const datasets::SampleSlots& out) const override {
    if (o_.delay_us > 0) std::this_thread::sleep_for(std::chrono::microseconds(o_.delay_us));
    auto rng = sim::Rng::stream(key.seed, key.split, static_cast<std::uint64_t>(key.index));
    for (std::size_t a = 0; a < layout_.sample_arrays.size(); ++a) {
      const auto& spec = layout_.sample_arrays[a];
      const auto n = static_cast<std::size_t>(spec.elements());
      if (spec.name == "index") {
        *out.get<std::int64_t>(a) = key.index;
        continue;
      }
      switch (spec.dtype) {
        case datasets::DType::u8:
          fill_ints(out.get<std::uint8_t>(a), n, rng, 4);
          break;
        case datasets::DType::i8:
          fill_ints(out.get<std::int8_t>(a), n, rng, 200, -100);
          break;
        case datasets::DType::u16:
          fill_ints(out.get<std::uint16_t>(a), n, rng, 60000);
          break;
        case datasets::DType::i16:
          fill_ints(out.get<std::int16_t>(a), n, rng, 60000, -30000);
          break;
        case datasets::DType::u32:
          fill_ints(out.get<std::uint32_t>(a), n, rng, 4000000000u);
          break;
        case datasets::DType::i32:
          fill_ints(out.get<std::int32_t>(a), n, rng, 9);
          break;
        case datasets::DType::u64:
          for (std::size_t i = 0; i < n; ++i) out.get<std::uint64_t>(a)[i] = rng();
          break;
        case datasets::DType::i64:
          fill_ints(out.get<std::int64_t>(a), n, rng, 1000, -500);
          break;
        case datasets::DType::f32:
          for (std::size_t i = 0; i < n; ++i) out.get<float>(a)[i] = static_cast<float>(rng.normal());
          break;
        case datasets::DType::f64:
          for (std::size_t i = 0; i < n; ++i) out.get<double>(a)[i] = rng.normal();
          break;
      }
    }
  }

 private:
  template <class T>
  static void fill_ints(T* p, std::size_t n, sim::Rng& rng, std::uint64_t range, std::int64_t offset = 0) {
    for (std::size_t i = 0; i < n; ++i) p[i] = static_cast<T>(static_cast<std::int64_t>(rng.below(range)) + offset);
  }

  SyntheticOptions o_;
  datasets::DatasetLayout layout_;
};

// Options for a small synthetic dataset in `out`: train 40 and test 13 samples, 10 per shard, a fixed `created`.
// The tests and loci_test_generate share it, so a killed-and-resumed helper run is compared with the same dataset.
inline datasets::GenerateOptions small_options(const std::filesystem::path& out) {
  datasets::GenerateOptions o;
  o.out = out;
  o.splits = {{"train", 40}, {"test", 13}};
  o.samples_per_shard = 10;
  o.seed = 7;
  o.generator = "synthetic";
  o.generator_version = "1.0.0";
  o.config_yaml = "generator: synthetic\nseed: 7\n";
  o.card_prose = "Random values of every dtype, made by the dataset tests.";
  o.regenerate_command = "loci_test_generate OUT";
  o.created = "2000-01-01T00:00:00Z";
  o.progress = false;
  return o;
}

}  // namespace loci::test
