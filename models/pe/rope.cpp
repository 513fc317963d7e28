// RoPE over the token index, the same rotation at every placement. The rotation runs along the sequence axis of
// [B, H, T, dh]; a rotation along the batch axis (a bug in the paper's code) is deliberately not offered.

#include "models/pe/rotary.hpp"
#include "models/positions/sinusoid.hpp"

#include <stdexcept>

namespace loci::models {
namespace {

torch::Tensor index_angles(const PEOptions& o, const PEContext& c) {
  if (!c.positions.defined()) throw std::invalid_argument("rope needs the tokens' positions to know their number");
  return rotary_angles(index_positions(c.positions.size(0)), rotary_head_dim(c, "rope") / 2, o.base());
}

class RopePEImpl : public RotaryPEImpl {
 public:
  RopePEImpl(const PEOptions& o, const PEContext& c) : RotaryPEImpl(o, c, index_angles(o, c)) {}
};

}  // namespace

LOCI_REGISTER(PEInfo, pe_info<RopePEImpl>("rope"));

}  // namespace loci::models
