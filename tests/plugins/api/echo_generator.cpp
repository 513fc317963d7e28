// A tiny real generator used to test the plugin host: sample i of split s holds i and the split's name length,
// and its tokens sit on a line. ECHO_NAME lets the same source build a second library with the same name.
#include <cstring>

#include "plugins/api/plugin.hpp"

namespace {

class EchoGenerator final : public loci::plugins::Generator {
 public:
  void configure(const loci::config::Node& resolved) override {
    tokens_ = resolved.find("tokens") ? resolved.at("tokens").as_int() : 4;
    layout_ = {};
    layout_.sample_arrays.push_back({"value", loci::datasets::DType::i64, {"token"}, {tokens_}, "index, repeated"});
    std::vector<float> pos(static_cast<std::size_t>(tokens_));
    for (std::int64_t t = 0; t < tokens_; ++t) pos[static_cast<std::size_t>(t)] = static_cast<float>(t);
    layout_.dataset_arrays.push_back(loci::datasets::Array::of(
        {"positions", loci::datasets::DType::f32, {"token", "axis"}, {tokens_, 1}, "position"}, pos));
  }
  const loci::datasets::DatasetLayout& layout() const override { return layout_; }
  void fill(const loci::datasets::SampleKey& key, const loci::datasets::SampleSlots& out) const override {
    auto* v = out.get<std::int64_t>(0);
    for (std::int64_t t = 0; t < tokens_; ++t) v[t] = key.index + static_cast<std::int64_t>(key.split.size());
  }
  std::string card_prose() const override { return "Echo test data."; }

 private:
  std::int64_t tokens_ = 4;
  loci::datasets::DatasetLayout layout_;
};

const char* kSchema = "tokens: {type: int, default: 4, min: 1, doc: \"tokens per sample\"}\n";

}  // namespace

LOCI_PLUGIN(LOCI_PLUGIN_GENERATOR, ECHO_NAME, "1.2.3", "echoes sample indices (a test fixture)", kSchema, EchoGenerator)
