// The balloon-Windkessel hemodynamic model (Buxton 1998; Friston et al. 2000, 2003): neural activity u drives a
// vasodilatory signal s, blood inflow f, venous volume v and deoxyhaemoglobin q, and the BOLD signal is read from
// v and q:
//   ds/dt = u - kappa s - gamma (f - 1),   df/dt = s,
//   tau dv/dt = f - v^(1/alpha),           tau dq/dt = f (1 - (1 - E0)^(1/f)) / E0 - v^(1/alpha) q / v,
//   y = V0 (7 E0 (1 - q) + 2 (1 - q / v) + (2 E0 - 0.2) (1 - v)).
// f, v and q are integrated as logarithms (Stephan et al. 2007), which keeps them positive for any input.
#pragma once

#include <cstddef>
#include <cstdint>

#include "core/option.hpp"

namespace loci::sim::volume {

class BalloonOptions {
  LOCI_OPTION(double, kappa) = 0.65;       // decay of the vasodilatory signal, 1/s
  LOCI_OPTION(double, gamma) = 0.41;       // autoregulation, 1/s
  LOCI_OPTION(double, tau) = 0.98;         // haemodynamic transit time, s
  LOCI_OPTION(double, alpha) = 0.32;       // Grubb's exponent
  LOCI_OPTION(double, e0) = 0.34;          // resting oxygen extraction fraction
  LOCI_OPTION(double, v0) = 0.02;          // resting venous blood volume fraction
  LOCI_OPTION(double, gain) = 0.1;         // u = gain x: neural efficacy of the activity x
  LOCI_OPTION(double, max_step_s) = 0.05;  // longest Euler step; each TR is cut into equal steps no longer
};

// Replaces each of `tokens` series (token-major: series[i * points + t], one value per TR of tr_s seconds) by its
// BOLD signal. Input is held constant over each TR; every state starts at rest. std::invalid_argument for
// parameters out of range.
void balloon_bold(float* series, std::size_t tokens, std::int64_t points, double tr_s, const BalloonOptions& options);

}  // namespace loci::sim::volume
