// A free [T, d] parameter per placement: the PE whose initialisation the paper studies. Drawn from the init registry,
// placements in order, so one generator seed fixes all of them; default N(0, 0.2^2) when no initialiser is given (the
// paper's small-sigma setting, the one that learns the grid).

#include "models/pe/positional_encoding.hpp"

namespace loci::models {
namespace {

class LearnedPEImpl : public TablePEImpl {
 public:
  static c10::optional<InitOptions> default_init(const PEOptions&) { return InitOptions("normal").std(0.2); }

  LearnedPEImpl(const PEOptions& o, const PEContext& c) : TablePEImpl(o, c) {
    for (const auto& table : draw_tables(*default_init(o))) add_table(table, /*learned=*/true);
  }
};

}  // namespace

LOCI_REGISTER(PEInfo, pe_info<LearnedPEImpl>("learned"));

}  // namespace loci::models
