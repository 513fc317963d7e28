// A linear network: dx = (-x + g W x) / tau dt + sigma dW. Stable while g times W's spectral radius stays below 1
// (with in-degree normalisation that radius is 1); its correlations are known in closed form, which makes it the
// model to check a pipeline against.
#include "cpu/clones.hpp"  // first: it sets how the loops below are compiled

#include <cmath>

#include "sim/dynamics/model.hpp"
#include "sim/dynamics/normal.hpp"

namespace loci::sim::dynamics {

namespace {

LOCI_CLONES void linear_field(std::size_t n, const double* wx, const double* x, double* f, double g, double inv_tau) {
#pragma omp simd
  for (std::size_t k = 0; k < n; ++k) f[k] = (g * wx[k] - x[k]) * inv_tau;
}

class OrnsteinUhlenbeck final : public Model {
 public:
  explicit OrnsteinUhlenbeck(const Params& p) : tau_(p.get("tau")), g_(p.get("g")), sigma_(p.get("sigma")) {}

  int variables() const override { return 1; }
  std::vector<std::string> variable_names() const override { return {"x"}; }
  NoiseEntry noise_entry() const override { return NoiseEntry::additive; }

  // The uncoupled stationary spread, so a short burn-in suffices.
  void initial_state(std::size_t nodes, Rng& rng, double* x) const override {
    const double sd = sigma_ * std::sqrt(tau_ / 2);
    for (std::size_t i = 0; i < nodes; ++i) x[i] = sd * ziggurat_normal(rng);
  }

  void drift(const Batch& batch, const double* x, const double*, double* f) const override {
    batch.couple(x, 0, batch.scratch);
    linear_field(batch.block(), batch.scratch, x, f, g_, 1.0 / tau_);
  }

  void diffusion(const Batch& batch, const double*, double* out) const override {
    for (std::size_t k = 0; k < batch.block(); ++k) out[k] = sigma_;
  }

 private:
  double tau_, g_, sigma_;
};

LOCI_REGISTER(ModelInfo,
              {"ornstein_uhlenbeck",
               "linear Ornstein-Uhlenbeck network: dx = (-x + g W x) / tau dt + sigma dW",
               {ParamSpec::real("tau", 1.0, "time constant").positive(),
                ParamSpec::real("g", 0.5, "global coupling (|g| < 1 keeps it stable with in-degree normalisation)"),
                ParamSpec::real("sigma", 1.0, "noise amplitude").at_least(0)},
               [](const Params& p) { return std::make_unique<OrnsteinUhlenbeck>(p); }});

}  // namespace

}  // namespace loci::sim::dynamics
