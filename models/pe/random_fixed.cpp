// A frozen random [T, d] table per placement (the paper's "fixed random N(0,1)" control): drawn once from the init
// registry, saved with the model as a buffer, never trained.

#include "models/pe/positional_encoding.hpp"

namespace loci::models {
namespace {

class RandomFixedPEImpl : public TablePEImpl {
 public:
  static c10::optional<InitOptions> default_init(const PEOptions&) { return InitOptions("normal").std(1.0); }

  RandomFixedPEImpl(const PEOptions& o, const PEContext& c) : TablePEImpl(o, c) {
    for (const auto& table : draw_tables(*default_init(o))) add_table(table, /*learned=*/false);
  }
};

}  // namespace

LOCI_REGISTER(PEInfo, pe_info<RandomFixedPEImpl>("random_fixed"));

}  // namespace loci::models
