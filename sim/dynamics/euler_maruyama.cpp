// Euler-Maruyama: x + f(x) dt + g(x) dW with dW = sqrt(dt) z. Strong order 1/2 in general (1 for additive
// noise), weak order 1; it converges to the Ito solution.
#include "cpu/clones.hpp"  // first: it sets how the loops below are compiled

#include <cmath>

#include "sim/dynamics/integrator.hpp"

namespace loci::sim::dynamics {

namespace {

LOCI_CLONES void advance(std::size_t n, double dt, const double* f, double* x) {
#pragma omp simd
  for (std::size_t k = 0; k < n; ++k) x[k] += dt * f[k];
}

LOCI_CLONES void advance_noisy(std::size_t n, double dt, double root_dt, const double* f, const double* g,
                               const double* z, double* x) {
#pragma omp simd
  for (std::size_t k = 0; k < n; ++k) x[k] += dt * f[k] + g[k] * (root_dt * z[k]);
}

class EulerMaruyama final : public Integrator {
 public:
  std::size_t workspace(std::size_t size) const override { return 2 * size; }

  void step(const Model& model, const Batch& batch, double dt, const double* z, double* x,
            double* work) const override {
    const std::size_t n = static_cast<std::size_t>(model.variables()) * batch.block();
    double* f = work;
    double* g = work + n;
    model.drift(batch, x, z, f);
    if (model.noise_entry() == NoiseEntry::drift) return advance(n, dt, f, x);
    model.diffusion(batch, x, g);
    advance_noisy(n, dt, std::sqrt(dt), f, g, z, x);
  }
};

LOCI_REGISTER(IntegratorInfo, {"euler_maruyama", "Euler-Maruyama: x + f dt + g dW (Ito; strong order 1/2, weak 1)",
                               [] { return std::make_unique<EulerMaruyama>(); }});

}  // namespace

}  // namespace loci::sim::dynamics
