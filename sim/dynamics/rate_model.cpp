// The reference rate model of the paper (Experiment 2), as the first author used it in earlier work:
//   tau dx/dt = -x + phi(g W x + s x + noise * xi),   phi(u) = 1 / (1 + exp(-(u - theta)))
// with W column-normalised by in-degree (the coupling the simulation is given), one standard normal xi per node
// and step held through the step's stages, and the paper's values g = 4, s = 1, theta = 2, dt = tau = 0.1.
//
// phi is evaluated in single precision (relative error about 2e-7): it is a third of a step's time in double and
// half that in float, and the model allows it: the state stays double, phi lies in (0, 1) next to a unit-variance
// noise inside it, and the recording keeps float32 anyway (with dt = tau, x after an Euler step is phi itself, so
// the recorded value moves by one or two float32 ulps). Statistics are unaffected; bits are deterministic as before.
#include "cpu/clones.hpp"  // first: it sets how the loops below are compiled

#include <cmath>

#include "cpu/fast_math.hpp"
#include "sim/dynamics/model.hpp"

namespace loci::sim::dynamics {

namespace {

LOCI_CLONES void rate_field(std::size_t n, const double* wx, const double* x, const double* z, double* f, double g,
                            double s, double noise, double theta, double inv_tau) {
#pragma omp simd
  for (std::size_t k = 0; k < n; ++k) {
    const double u = std::fma(g, wx[k], std::fma(s, x[k], noise * z[k]));
    const float phi = cpu::logistic_float(static_cast<float>(u - theta));
    f[k] = (static_cast<double>(phi) - x[k]) * inv_tau;
  }
}

class RateModel final : public Model {
 public:
  explicit RateModel(const Params& p)
      : tau_(p.get("tau")), g_(p.get("g")), s_(p.get("s")), theta_(p.get("theta")), noise_(p.get("noise")) {}

  int variables() const override { return 1; }
  std::vector<std::string> variable_names() const override { return {"rate"}; }
  NoiseEntry noise_entry() const override { return NoiseEntry::drift; }

  void initial_state(std::size_t nodes, Rng& rng, double* x) const override {
    for (std::size_t i = 0; i < nodes; ++i) x[i] = rng.uniform();
  }

  void drift(const Batch& batch, const double* x, const double* z, double* f) const override {
    batch.couple(x, 0, batch.scratch);
    rate_field(batch.block(), batch.scratch, x, z, f, g_, s_, noise_, theta_, 1.0 / tau_);
  }

 private:
  double tau_, g_, s_, theta_, noise_;
};

LOCI_REGISTER(
    ModelInfo,
    {"rate",
     "paper's rate model: tau dx/dt = -x + 1/(1+exp(-(g W x + s x + noise xi - theta))), xi ~ N(0,1) per node and step",
     {ParamSpec::real("tau", 0.1, "time constant").positive(), ParamSpec::real("g", 4.0, "global coupling"),
      ParamSpec::real("s", 1.0, "self-coupling"), ParamSpec::real("theta", 2.0, "shift of the sigmoid"),
      ParamSpec::real("noise", 1.0, "standard deviation of xi, the noise inside the sigmoid").at_least(0)},
     [](const Params& p) { return std::make_unique<RateModel>(p); }});

}  // namespace

}  // namespace loci::sim::dynamics
