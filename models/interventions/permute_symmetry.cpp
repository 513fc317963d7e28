// permute_symmetry: the PE's rows relabelled by a symmetry of the true positions (point_symmetries.hpp). A model
// that reads the geometry of its PE sees the same shape and should barely be hurt; a lookup table of the draw is.
#include "models/interventions/intervention.hpp"
#include "models/interventions/point_symmetries.hpp"

namespace loci::models {
namespace {

LOCI_REGISTER(
    Intervention,
    {"permute_symmetry",
     "the PE's rows relabelled by each symmetry of the true positions (the grid's rotations and reflections; where "
     "there is no exact one, each axis's mirror matched to the nearest tokens, its distortion recorded)",
     false, [](const PEState& s) {
       std::vector<InterventionVariant> out;
       for (const auto& sym : point_symmetries(s.positions))
         out.push_back(relabelled("permute_symmetry:" + sym.name, s, sym.permutation));
       return out;
     }});

}  // namespace
}  // namespace loci::models
