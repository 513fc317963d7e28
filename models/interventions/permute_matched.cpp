// permute_matched: the control of permute_symmetry. For each symmetry of the true positions, random relabellings
// that move exactly the tokens the symmetry moves and keep its fixed tokens (a grid's diagonal under a transpose,
// the readout corner among them) in place. A symmetry that hurts less than its matched permutations is read through
// the geometry it keeps, not through the tokens it happens to leave alone.
#include <random>

#include "models/interventions/intervention.hpp"
#include "models/interventions/point_symmetries.hpp"

namespace loci::models {
namespace {

// The tokens `symmetry` moves, shuffled among themselves (Fisher-Yates on mt19937_64, the same on every platform).
std::vector<int64_t> matched_permutation(const std::vector<int64_t>& symmetry, std::uint64_t seed) {
  std::vector<int64_t> moved;
  for (size_t i = 0; i < symmetry.size(); ++i)
    if (symmetry[i] != static_cast<int64_t>(i)) moved.push_back(static_cast<int64_t>(i));
  std::vector<int64_t> shuffled = moved;
  std::mt19937_64 engine(seed);
  for (size_t i = shuffled.size(); i > 1; --i) std::swap(shuffled[i - 1], shuffled[engine() % i]);
  std::vector<int64_t> out(symmetry.size());
  for (size_t i = 0; i < out.size(); ++i) out[i] = static_cast<int64_t>(i);
  for (size_t k = 0; k < moved.size(); ++k) out[static_cast<size_t>(moved[k])] = shuffled[k];
  return out;
}

LOCI_REGISTER(
    Intervention,
    {"permute_matched",
     "for each symmetry permute_symmetry uses, PEState::permutations random relabellings of the same moved tokens, "
     "its fixed tokens kept: the symmetry's control",
     false, [](const PEState& s) {
       std::vector<InterventionVariant> out;
       const auto symmetries = point_symmetries(s.positions);
       for (size_t j = 0; j < symmetries.size(); ++j)
         for (int64_t k = 0; k < s.permutations; ++k)
           out.push_back(relabelled("permute_matched:" + symmetries[j].name + "#" + std::to_string(k), s,
                                    matched_permutation(symmetries[j].permutation, s.seed * 1000003u + 7919u * (j + 1) +
                                                                                       static_cast<std::uint64_t>(k))));
       return out;
     }});

}  // namespace
}  // namespace loci::models
