#include "models/choices.hpp"

#include <algorithm>

namespace loci::models {

#define LOCI_CHOICES(name, ...)                           \
  const std::vector<std::string>& name() {                \
    static const std::vector<std::string> v{__VA_ARGS__}; \
    return v;                                             \
  }

LOCI_CHOICES(pe_placements, "per_block", "shared", "input_only")
LOCI_CHOICES(pe_offsets, "index", "coordinates")
LOCI_CHOICES(relative_variants, "bias", "music_causal")
LOCI_CHOICES(activations, "gelu", "relu")
LOCI_CHOICES(norm_placements, "post", "pre")
LOCI_CHOICES(poolings, "last", "target", "mean", "cls")
LOCI_CHOICES(sinusoid_sources, "index", "coordinates")
LOCI_CHOICES(coordinate_modes, "project", "tile")

#undef LOCI_CHOICES

bool is_one_of(const std::string& value, const std::vector<std::string>& choices) {
  return std::find(choices.begin(), choices.end(), value) != choices.end();
}

}  // namespace loci::models
