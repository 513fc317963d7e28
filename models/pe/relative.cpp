// Learned relative-position attention, one table per placement, two variants:
//   bias          a logit bias per head and offset (Shaw et al. / T5 style without buckets), table [H, offsets],
//                 offsets of the token index (j - i) or of the true positions (grid offset vectors p_j - p_i);
//   music_causal  Music-Transformer relative attention (Huang et al. 2018), the paper's "relative": each head has
//                 embeddings E_r [H, L, dh] for offsets -(L-1)..0 and adds (q_i . E_{j-i}) / sqrt(dh) to the logits,
//                 under a causal mask. The skewing trick of the original is a memory optimisation; the gather used
//                 here gives the same logits.
// Default initialisers: zeros for bias (attention starts position-blind), N(0, 1) for the music embeddings.

#include "models/pe/positional_encoding.hpp"

#include <ATen/ops/unique_dim.h>

#include <algorithm>
#include <stdexcept>

namespace loci::models {
namespace {

class RelativePEImpl : public PositionalEncodingImpl {
 public:
  // The authors' Music-Transformer tables are drawn N(0, 1); a bias table starts at zero (no preference).
  static c10::optional<InitOptions> default_init(const PEOptions& o) {
    return o.variant() == RelativeVariant::music_causal ? InitOptions("normal").std(1.0) : InitOptions("zeros");
  }

  RelativePEImpl(const PEOptions& o, const PEContext& c) : PositionalEncodingImpl(o, c) {
    const auto T = tokens();
    const int64_t reach = o.max_distance() > 0 ? std::min<int64_t>(o.max_distance(), T - 1) : T - 1;
    auto i = torch::arange(T, torch::kInt64).reshape({T, 1});
    auto j = torch::arange(T, torch::kInt64).reshape({1, T});
    std::vector<int64_t> shape;
    if (o.variant() == RelativeVariant::bias) {
      int64_t count = 0;
      if (o.offsets() == PeOffsets::index) {
        index_ = (j - i).clamp(-reach, reach) + reach;
        count = 2 * reach + 1;
      } else {
        std::tie(index_, count) = coordinate_offsets(o.max_distance());
      }
      shape = {heads(), count};
    } else {
      if (o.offsets() != PeOffsets::index)
        throw std::invalid_argument("relative music_causal works on index offsets only");
      music_ = true;
      // Later tokens are masked, so their entries only need to be a valid row.
      index_ = (j - i).clamp(-reach, 0) + reach;
      shape = {heads(), reach + 1, d_model() / heads()};
    }
    index_ = register_buffer("offset_index", index_.contiguous());
    const auto init = init_or(*default_init(o));
    for (int64_t p = 0; p < placements(); ++p)
      tables_.push_back(register_parameter("table_" + std::to_string(p), make_init(shape, init, init_context()), true));
  }

  torch::Tensor attention_bias(int64_t placement, const torch::Tensor& q, double scale) const override {
    check_placement(placement);
    const auto& t = tables_[static_cast<size_t>(placement)];
    const auto T = tokens();
    if (!music_) return t.index_select(1, index_.reshape({-1})).reshape({1, heads(), T, T});
    auto logits = torch::matmul(q, t.transpose(1, 2));  // [B, H, T, L]
    return logits.gather(3, index_.expand({q.size(0), q.size(1), T, T})) * scale;
  }

  bool causal() const override { return music_; }

  torch::Tensor table(int64_t placement) const override {
    check_placement(placement);
    return tables_[static_cast<size_t>(placement)];
  }

 private:
  // Distinct offset vectors p_j - p_i (to 1e-4, optionally clipped per axis) and, per pair, which one it is.
  std::pair<torch::Tensor, int64_t> coordinate_offsets(int64_t clip) const {
    const auto T = tokens();
    auto p = positions().to(torch::kFloat64);
    auto offsets = p.unsqueeze(0) - p.unsqueeze(1);  // [i, j, dims] = p_j - p_i
    if (clip > 0) offsets = offsets.clamp(-static_cast<double>(clip), static_cast<double>(clip));
    auto keys = (offsets * 1e4).round().to(torch::kInt64).reshape({T * T, -1});
    auto [unique, inverse, counts] = at::unique_dim(keys, 0, /*sorted=*/true, /*return_inverse=*/true);
    return {inverse.reshape({T, T}), unique.size(0)};
  }

  bool music_ = false;
  torch::Tensor index_;
  std::vector<torch::Tensor> tables_;
};

}  // namespace

LOCI_REGISTER(PEInfo, pe_info<RelativePEImpl>("relative"));

}  // namespace loci::models
