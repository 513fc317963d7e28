// Stuart-Landau oscillators, the normal form of a Hopf bifurcation, with diffusive coupling:
//   dz = ((a + i omega) z - |z|^2 z + g (W z - z)) dt + sigma dW,  z = x + i y, independent noise on x and y.
// a < 0: noise-driven damped oscillations (the regime whole-brain Hopf models use); a > 0: a limit cycle of
// radius sqrt(a). The recorded variable is x = Re z.
#include "cpu/clones.hpp"  // first: it sets how the loops below are compiled

#include "sim/dynamics/model.hpp"
#include "sim/dynamics/normal.hpp"

namespace loci::sim::dynamics {

namespace {

LOCI_CLONES void hopf_field(std::size_t n, const double* x, const double* y, const double* wx, const double* wy,
                            double* fx, double* fy, double a, double omega, double g) {
#pragma omp simd
  for (std::size_t k = 0; k < n; ++k) {
    const double r2 = x[k] * x[k] + y[k] * y[k];
    fx[k] = (a - r2) * x[k] - omega * y[k] + g * (wx[k] - x[k]);
    fy[k] = (a - r2) * y[k] + omega * x[k] + g * (wy[k] - y[k]);
  }
}

class StuartLandau final : public Model {
 public:
  explicit StuartLandau(const Params& p)
      : a_(p.get("a")), omega_(p.get("omega")), g_(p.get("g")), sigma_(p.get("sigma")) {}

  int variables() const override { return 2; }
  std::vector<std::string> variable_names() const override { return {"x", "y"}; }
  NoiseEntry noise_entry() const override { return NoiseEntry::additive; }

  void initial_state(std::size_t nodes, Rng& rng, double* x) const override {
    for (std::size_t k = 0; k < 2 * nodes; ++k) x[k] = 0.1 * ziggurat_normal(rng);
  }

  void drift(const Batch& batch, const double* state, const double*, double* f) const override {
    const std::size_t n = batch.block();
    batch.couple(state, 0, batch.scratch);
    batch.couple(state + n, 1, batch.scratch + n);
    hopf_field(n, state, state + n, batch.scratch, batch.scratch + n, f, f + n, a_, omega_, g_);
  }

  void diffusion(const Batch& batch, const double*, double* out) const override {
    for (std::size_t k = 0; k < 2 * batch.block(); ++k) out[k] = sigma_;
  }

 private:
  double a_, omega_, g_, sigma_;
};

LOCI_REGISTER(
    ModelInfo,
    {"stuart_landau",
     "Stuart-Landau (Hopf) oscillators: dz = ((a + i omega) z - |z|^2 z + g (W z - z)) dt + sigma dW; records Re z",
     {ParamSpec::real("a", -0.05, "bifurcation parameter (< 0 damped, > 0 oscillating)"),
      ParamSpec::real("omega", 1.0, "angular frequency (radians per time unit)"),
      ParamSpec::real("g", 0.5, "global diffusive coupling"),
      ParamSpec::real("sigma", 0.05, "noise amplitude on each of x and y").at_least(0)},
     [](const Params& p) { return std::make_unique<StuartLandau>(p); }});

}  // namespace

}  // namespace loci::sim::dynamics
