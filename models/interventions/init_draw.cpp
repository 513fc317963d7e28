// init: the trained PE replaced by its epoch-0 draw: what the model does with the table it started from.
#include "models/interventions/intervention.hpp"

namespace loci::models {
namespace {

LOCI_REGISTER(Intervention, {"init", "the PE replaced by its epoch-0 matrices (the draw it was trained from)", true,
                             [](const PEState& s) {
                               return std::vector<InterventionVariant>{{"init", s.initial}};
                             }});

}  // namespace
}  // namespace loci::models
