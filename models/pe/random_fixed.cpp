// A frozen random [T, d] table per placement (the paper's "fixed random N(0,1)" control): drawn once from the init
// registry, saved with the model as a buffer, never trained.

#include "models/pe/positional_encoding.hpp"

namespace loci::models {
namespace {

class RandomFixedPEImpl : public TablePEImpl {
 public:
  static c10::optional<InitOptions> default_init(const PEOptions&) { return InitOptions("normal").std(1.0); }

  RandomFixedPEImpl(const PEOptions& o, const PEContext& c) : TablePEImpl(o, c) {
    const auto init = init_or(*default_init(o));
    for (int64_t p = 0; p < placements(); ++p)
      add_table(make_init({tokens(), d_model()}, init, init_context()), /*learned=*/false);
  }
};

}  // namespace

LOCI_REGISTER_PE("random_fixed", RandomFixedPEImpl);

}  // namespace loci::models
