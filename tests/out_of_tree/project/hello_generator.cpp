// The smallest useful generator: tokens on a ring, each sample a random phase per token.
#include <cmath>

#include <loci/plugins/api/plugin.hpp>
#include <loci/sim/random/stream.hpp>

namespace {

class HelloGenerator final : public loci::plugins::Generator {
 public:
  void configure(const loci::config::Node& resolved) override {
    n_ = resolved.at("tokens").as_int();
    layout_.sample_arrays = {{"phase", loci::datasets::DType::f32, {"token"}, {n_}, "random phase per token"}};
    std::vector<float> xy;
    for (std::int64_t i = 0; i < n_; ++i) {
      xy.push_back(static_cast<float>(std::cos(2 * M_PI * i / n_)));
      xy.push_back(static_cast<float>(std::sin(2 * M_PI * i / n_)));
    }
    layout_.dataset_arrays = {loci::datasets::Array::of({"positions", {}, {"token", "axis"}, {n_, 2}, "ring"}, xy)};
  }
  const loci::datasets::DatasetLayout& layout() const override { return layout_; }
  void fill(const loci::datasets::SampleKey& key, const loci::datasets::SampleSlots& out) const override {
    auto rng = loci::sim::Rng::stream(key.seed, key.split, static_cast<std::uint64_t>(key.index));
    float* phase = out.get<float>(0);
    for (std::int64_t i = 0; i < n_; ++i) phase[i] = static_cast<float>(rng.uniform());
  }
  std::string card_prose() const override { return "Tokens on a ring with random phases."; }

 private:
  std::int64_t n_ = 8;
  loci::datasets::DatasetLayout layout_;
};

}  // namespace

LOCI_PLUGIN(LOCI_PLUGIN_GENERATOR, "hello_generator", "0.0.1", "tokens on a ring (out-of-tree example)",
            "tokens: {type: int, default: 8, min: 2, doc: \"tokens on the ring\"}\n", HelloGenerator)
