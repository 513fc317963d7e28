// Fixed sinusoids of the true coordinates, d split evenly over the axes: the oracle PE for networks (2D/3D node
// coordinates) and parcels (centroids in mm; coordinate_scale converts units so that the lowest frequency spans them).

#include "models/pe/positional_encoding.hpp"
#include "models/positions/sinusoid.hpp"

namespace loci::models {
namespace {

class SinusoidalNdPEImpl : public TablePEImpl {
 public:
  SinusoidalNdPEImpl(const PEOptions& o, const PEContext& c) : TablePEImpl(o, c) {
    add_table(sinusoid_table_nd(positions() * o.coordinate_scale(), d_model(), o.base()), /*learned=*/false);
    set_dropout(o.sinusoidal_dropout(), o.dropout_at_eval());
  }
};

}  // namespace

LOCI_REGISTER(PEInfo, pe_info<SinusoidalNdPEImpl>("sinusoidal_nd"));

}  // namespace loci::models
