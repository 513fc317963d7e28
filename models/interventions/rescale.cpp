// rescale: the same PE at another norm (PEState::scales times its own): whether the model depends on the PE's scale
// against the token embeddings rather than on its shape.
#include <sstream>

#include "models/interventions/intervention.hpp"

namespace loci::models {
namespace {

LOCI_REGISTER(Intervention, {"rescale", "the PE multiplied by each of PEState::scales (0.5 and 2 by default)", false,
                             [](const PEState& s) {
                               std::vector<InterventionVariant> out;
                               for (const double scale : s.scales) {
                                 std::vector<torch::Tensor> tables;
                                 for (const auto& t : s.trained) tables.push_back(t * scale);
                                 std::ostringstream name;
                                 name << "rescale:" << scale;  // 0.5, 2: as a researcher writes them
                                 out.push_back({name.str(), tables});
                               }
                               return out;
                             }});

}  // namespace
}  // namespace loci::models
