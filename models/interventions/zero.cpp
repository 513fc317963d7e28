// zero: no PE at all: what the model does without positions.
#include "models/interventions/intervention.hpp"

namespace loci::models {
namespace {

LOCI_REGISTER(Intervention, {"zero", "the PE set to zero", false, [](const PEState& s) {
                               std::vector<torch::Tensor> tables;
                               for (const auto& t : s.trained) tables.push_back(torch::zeros_like(t));
                               return std::vector<InterventionVariant>{{"zero", tables}};
                             }});

}  // namespace
}  // namespace loci::models
