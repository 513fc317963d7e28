#pragma once
// Rotary position encoding (Su et al.): each pair (2k, 2k+1) of a head's query and key dimensions is rotated by an
// angle that grows with position, so q_i . k_j depends on positions only through their difference. The rotation is
// applied per token along the sequence axis; rope and rope_axial differ only in where the angles come from.

#include "models/pe/positional_encoding.hpp"

namespace loci::models {

class RotaryPEImpl : public PositionalEncodingImpl {
 public:
  // angles: [T, dh/2] (float64), one angle per token and dimension pair.
  RotaryPEImpl(const PEOptions& options, const PEContext& context, const torch::Tensor& angles);
  void rotate(torch::Tensor& q, torch::Tensor& k, int64_t placement) const override;

 private:
  torch::Tensor cos_, sin_;
};

// x: [..., T, dh] rotated pairwise by cos/sin [T, dh/2].
torch::Tensor apply_rotary(const torch::Tensor& x, const torch::Tensor& cos, const torch::Tensor& sin);

// The per-head width a rotary PE rotates; throws unless it is even.
int64_t rotary_head_dim(const PEContext& context, const char* type);

}  // namespace loci::models
