// Stochastic Heun: an Euler predictor, then the trapezoid of the drift (and of the diffusion) at both ends, with
// the same draws in both stages. It converges to the Stratonovich solution: strong order 1 for additive or scalar
// multiplicative noise, weak order 2 for additive noise. For models whose noise enters the drift (the paper's rate
// model) it is the deterministic Heun step of f(x, z) with z held over the step.
#include "cpu/clones.hpp"  // first: it sets how the loops below are compiled

#include <cmath>

#include "sim/dynamics/integrator.hpp"

namespace loci::sim::dynamics {

namespace {

// predicted = x + dt f + noise; noise = g sqrt(dt) z (or nothing when g is null).
LOCI_CLONES void predict(std::size_t n, double dt, double root_dt, const double* x, const double* f, const double* g,
                         const double* z, double* predicted) {
  if (!g) {
#pragma omp simd
    for (std::size_t k = 0; k < n; ++k) predicted[k] = std::fma(dt, f[k], x[k]);
    return;
  }
#pragma omp simd
  for (std::size_t k = 0; k < n; ++k) predicted[k] = x[k] + dt * f[k] + g[k] * (root_dt * z[k]);
}

// x += dt/2 (f1 + f2) + (g1 + g2)/2 sqrt(dt) z, with g2 = g1 when g2 is null and no noise term when g1 is.
LOCI_CLONES void correct(std::size_t n, double dt, double root_dt, const double* f1, const double* f2, const double* g1,
                         const double* g2, const double* z, double* x) {
  const double half_dt = 0.5 * dt;
  if (!g1) {
#pragma omp simd
    for (std::size_t k = 0; k < n; ++k) x[k] = std::fma(half_dt, f1[k] + f2[k], x[k]);
  } else if (!g2) {
#pragma omp simd
    for (std::size_t k = 0; k < n; ++k) x[k] += half_dt * (f1[k] + f2[k]) + g1[k] * (root_dt * z[k]);
  } else {
#pragma omp simd
    for (std::size_t k = 0; k < n; ++k) x[k] += half_dt * (f1[k] + f2[k]) + 0.5 * (g1[k] + g2[k]) * (root_dt * z[k]);
  }
}

class Heun final : public Integrator {
 public:
  std::size_t workspace(std::size_t size) const override { return 5 * size; }

  void step(const Model& model, const Batch& batch, double dt, const double* z, double* x,
            double* work) const override {
    const std::size_t n = static_cast<std::size_t>(model.variables()) * batch.block();
    double* f1 = work;
    double* f2 = work + n;
    double* predicted = work + 2 * n;
    double* g1 = work + 3 * n;
    double* g2 = work + 4 * n;
    const double root_dt = std::sqrt(dt);
    const NoiseEntry noise = model.noise_entry();
    model.drift(batch, x, z, f1);
    if (noise != NoiseEntry::drift) model.diffusion(batch, x, g1);
    predict(n, dt, root_dt, x, f1, noise == NoiseEntry::drift ? nullptr : g1, z, predicted);
    Batch end = batch;  // the predicted state is at t + dt: one step later for delayed coupling
    end.stage = batch.stage + 1;
    model.drift(end, predicted, z, f2);
    if (noise == NoiseEntry::multiplicative) model.diffusion(end, predicted, g2);
    correct(n, dt, root_dt, f1, f2, noise == NoiseEntry::drift ? nullptr : g1,
            noise == NoiseEntry::multiplicative ? g2 : nullptr, z, x);
  }
};

LOCI_REGISTER(IntegratorInfo, {"heun",
                               "stochastic Heun: predictor-corrector, trapezoid in drift and "
                               "diffusion (Stratonovich; strong order 1 for additive noise)",
                               [] { return std::make_unique<Heun>(); }});

}  // namespace

}  // namespace loci::sim::dynamics
