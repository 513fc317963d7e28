// oracle: the sinusoids of the true positions (sinusoidal_nd) in the trained PE's place: a PE that carries the
// geometry exactly, which a model that learned to read positions but not this code may still not use.
#include "models/interventions/intervention.hpp"

namespace loci::models {
namespace {

LOCI_REGISTER(Intervention,
              {"oracle",
               "the PE replaced by the oracle, the sinusoids of the true positions (sinusoidal_nd), at every placement",
               false, [](const PEState& s) {
                 return std::vector<InterventionVariant>{{"oracle", s.oracle}};
               }});

}  // namespace
}  // namespace loci::models
