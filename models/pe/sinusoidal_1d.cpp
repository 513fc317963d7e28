// The fixed sinusoid of the token index (Vaswani et al.), one table serving every placement.

#include "models/pe/positional_encoding.hpp"
#include "models/positions/sinusoid.hpp"

namespace loci::models {
namespace {

class Sinusoidal1dPEImpl : public TablePEImpl {
 public:
  Sinusoidal1dPEImpl(const PEOptions& o, const PEContext& c) : TablePEImpl(o, c) {
    add_table(sinusoid_table(torch::arange(tokens(), torch::kFloat64), d_model(), o.base()), /*learned=*/false);
    set_dropout(o.sinusoidal_dropout(), o.dropout_at_eval());
  }
};

}  // namespace

LOCI_REGISTER(PEInfo, pe_info<Sinusoidal1dPEImpl>("sinusoidal_1d"));

}  // namespace loci::models
