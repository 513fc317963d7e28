// ALiBi (Press et al.), bidirectional for an encoder: head h adds -m_h * distance(i, j) to its logits, with slopes
// m_h = 2^(-8 (h+1) / H). Distance is |i - j| over the token index, or the Euclidean distance between true positions
// (times coordinate_scale) with offsets "coordinates". Fixed: nothing is learned, the bias is a buffer.

#include "models/pe/positional_encoding.hpp"

#include <cmath>
#include <stdexcept>

namespace loci::models {
namespace {

class AlibiPEImpl : public PositionalEncodingImpl {
 public:
  AlibiPEImpl(const PEOptions& o, const PEContext& c) : PositionalEncodingImpl(o, c) {
    torch::Tensor distance;
    if (o.offsets() == PeOffsets::index) {
      auto t = torch::arange(tokens(), torch::kFloat64);
      distance = (t.reshape({1, -1}) - t.reshape({-1, 1})).abs();
    } else {
      auto p = positions().to(torch::kFloat64) * o.coordinate_scale();
      distance = (p.unsqueeze(0) - p.unsqueeze(1)).pow(2).sum(2).sqrt();
    }
    auto h = torch::arange(1, heads() + 1, torch::kFloat64);
    auto slopes = torch::pow(2.0, -8.0 * h / static_cast<double>(heads()));
    bias_ = register_buffer("bias", (-slopes.reshape({-1, 1, 1}) * distance.unsqueeze(0)).to(torch::kFloat32));
  }

  torch::Tensor attention_bias(int64_t placement, const torch::Tensor&, double) const override {
    check_placement(placement);
    return bias_.unsqueeze(0);
  }

  torch::Tensor table(int64_t placement) const override {
    check_placement(placement);
    return bias_;
  }

 private:
  torch::Tensor bias_;
};

}  // namespace

LOCI_REGISTER(PEInfo, pe_info<AlibiPEImpl>("alibi"));

}  // namespace loci::models
