// displacement: only what training wrote into the PE, PE - PE(0), without the draw it was added to.
#include "models/interventions/intervention.hpp"

namespace loci::models {
namespace {

LOCI_REGISTER(Intervention,
              {"displacement",
               "the PE replaced by its displacement from epoch 0, PE - PE(0): what training wrote, without the draw",
               true, [](const PEState& s) {
                 std::vector<torch::Tensor> tables;
                 for (size_t p = 0; p < s.trained.size(); ++p) tables.push_back(s.trained[p] - s.initial.at(p));
                 return std::vector<InterventionVariant>{{"displacement", tables}};
               }});

}  // namespace
}  // namespace loci::models
