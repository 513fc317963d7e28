// permute_random: the PE's rows shuffled among the tokens, the same shuffle at every placement. A model that reads
// its PE at all is hurt; how much, beside permute_symmetry's, says whether it reads the geometry or a lookup table.
#include <random>

#include "models/interventions/intervention.hpp"

namespace loci::models {
namespace {

// Fisher-Yates on the standard's own mt19937_64, so that a seed gives the same permutation on every platform.
std::vector<int64_t> permutation(int64_t n, std::uint64_t seed) {
  std::vector<int64_t> p(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) p[static_cast<size_t>(i)] = i;
  std::mt19937_64 engine(seed);
  for (int64_t i = n - 1; i > 0; --i) {
    const auto j = static_cast<int64_t>(engine() % static_cast<std::uint64_t>(i + 1));
    std::swap(p[static_cast<size_t>(i)], p[static_cast<size_t>(j)]);
  }
  return p;
}

LOCI_REGISTER(Intervention,
              {"permute_random", "the PE's rows permuted among the tokens at random (PEState::permutations draws)",
               false, [](const PEState& s) {
                 std::vector<InterventionVariant> out;
                 const int64_t n = s.trained.front().size(0);
                 for (int64_t k = 0; k < s.permutations; ++k)
                   out.push_back(relabelled("permute_random#" + std::to_string(k), s,
                                            permutation(n, s.seed * 1000003u + static_cast<std::uint64_t>(k))));
                 return out;
               }});

}  // namespace
}  // namespace loci::models
