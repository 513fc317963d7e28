// The keys every initialiser may read (model.pe.init.<key> in a config), declared once. InitOptions' fields and
// their defaults, the trainer's schema, reader, checks and docs for them, the keys a run's config.yaml records, and
// the scale keys an initialiser may name all follow from this one list; an initialiser's keys of its own are declared
// with its registration instead (init_info's `keys`).
#pragma once

#include <limits>

// X(C++ type, key, default, least value (kNoLeast: none), choices (for an enum key, the function returning its
// names' table, models/choices.hpp; nullptr for a number), doc). Any number key may be the scale an initialiser names
// in its registration.
#define LOCI_INIT_KEYS(X)                                                                                    \
  X(double, std, 1.0, 0.0, nullptr, "sigma of normal / truncated_normal (the paper's sigma)")                \
  X(double, a, 0.1, 0.0, nullptr, "half-width of uniform")                                                   \
  X(double, gain, 1.0, ::loci::models::kNoLeast, nullptr, "scale of orthogonal")                             \
  X(double, scale, 1.0, ::loci::models::kNoLeast, nullptr, "scale of from_sinusoidal / from_coordinates")    \
  X(::loci::models::SinusoidSource, source, ::loci::models::SinusoidSource::index, ::loci::models::kNoLeast, \
    ::loci::models::sinusoid_sources,                                                                        \
    "from_sinusoidal: 1D sinusoid of the token index, or split over the true coordinates")                   \
  X(::loci::models::CoordinateMode, mode, ::loci::models::CoordinateMode::project, ::loci::models::kNoLeast, \
    ::loci::models::coordinate_modes,                                                                        \
    "from_coordinates: standardised coordinates times a random Gaussian matrix, or tiled")                   \
  X(double, base, 10000.0, 1.0, nullptr, "from_sinusoidal: wavelength base")

namespace loci::models {

inline constexpr double kNoLeast = -std::numeric_limits<double>::infinity();

}  // namespace loci::models
