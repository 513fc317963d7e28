// Axial RoPE from true coordinates (2D grids, 3D centroids): the head's dimension pairs are split evenly over the
// axes and each block rotates with its own coordinate; pairs left over are not rotated.

#include "models/pe/rotary.hpp"
#include "models/positions/sinusoid.hpp"

#include <stdexcept>

namespace loci::models {
namespace {

torch::Tensor coordinate_angles(const PEOptions& o, const PEContext& c) {
  if (!c.positions.defined() || c.positions.dim() != 2)
    throw std::invalid_argument("rope_axial needs the tokens' positions as [tokens, dims]");
  return rotary_angles(c.positions.to(torch::kFloat64) * o.coordinate_scale(), rotary_head_dim(c, "rope_axial") / 2,
                       o.base());
}

class RopeAxialPEImpl : public RotaryPEImpl {
 public:
  RopeAxialPEImpl(const PEOptions& o, const PEContext& c) : RotaryPEImpl(o, c, coordinate_angles(o, c)) {}
};

}  // namespace

LOCI_REGISTER(PEInfo, pe_info<RopeAxialPEImpl>("rope_axial"));

}  // namespace loci::models
