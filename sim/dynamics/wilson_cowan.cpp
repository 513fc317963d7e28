// Wilson-Cowan excitatory/inhibitory pairs, coupled through the excitatory populations:
//   tau_e dE = (-E + S_e(w_ee E - w_ei I + g W E + p_e)) dt + sigma dW
//   tau_i dI = (-I + S_i(w_ie E - w_ii I + p_i)) dt + sigma dW,    S(u) = 1 / (1 + exp(-a (u - theta)))
// Defaults are the classic 1972 coupling constants; the recorded variable is E.
#include "cpu/clones.hpp"  // first: it sets how the loops below are compiled

#include "cpu/fast_math.hpp"
#include "sim/dynamics/model.hpp"

namespace loci::sim::dynamics {

namespace {

struct Constants {
  double inv_te, inv_ti, w_ee, w_ei, w_ie, w_ii, a_e, theta_e, a_i, theta_i, p_e, p_i, g;
};

LOCI_CLONES void wilson_cowan_field(std::size_t n, const double* e, const double* i, const double* we, double* fe,
                                    double* fi, const Constants& constants) {
  const Constants c = constants;  // by value: the stores below cannot alias it, so nothing is reloaded
#pragma omp simd
  for (std::size_t k = 0; k < n; ++k) {
    const double ue = c.w_ee * e[k] - c.w_ei * i[k] + c.g * we[k] + c.p_e;
    const double ui = c.w_ie * e[k] - c.w_ii * i[k] + c.p_i;
    fe[k] = (cpu::logistic(c.a_e * (ue - c.theta_e)) - e[k]) * c.inv_te;
    fi[k] = (cpu::logistic(c.a_i * (ui - c.theta_i)) - i[k]) * c.inv_ti;
  }
}

// Each parameter declared once (name, default, doc, bound): its member, its ParamSpec and its reading follow.
#define LOCI_WILSON_COWAN_PARAMS(X)                             \
  X(tau_e, 1.0, "excitatory time constant", .positive())        \
  X(tau_i, 1.0, "inhibitory time constant", .positive())        \
  X(w_ee, 16.0, "E -> E weight", )                              \
  X(w_ei, 12.0, "I -> E weight", )                              \
  X(w_ie, 15.0, "E -> I weight", )                              \
  X(w_ii, 3.0, "I -> I weight", )                               \
  X(a_e, 1.3, "gain of the excitatory sigmoid", .at_least(0))   \
  X(theta_e, 4.0, "threshold of the excitatory sigmoid", )      \
  X(a_i, 2.0, "gain of the inhibitory sigmoid", .at_least(0))   \
  X(theta_i, 3.7, "threshold of the inhibitory sigmoid", )      \
  X(p_e, 1.25, "external drive to E", )                         \
  X(p_i, 0.0, "external drive to I", )                          \
  X(g, 1.0, "global coupling between excitatory populations", ) \
  X(sigma, 0.05, "noise amplitude on both variables", .at_least(0))

struct WilsonCowanParams {
#define LOCI_MEMBER(name, fallback, doc, bound) double name = fallback;
  LOCI_WILSON_COWAN_PARAMS(LOCI_MEMBER)
#undef LOCI_MEMBER

  static std::vector<ParamSpec> specs() {
#define LOCI_SPEC(name, fallback, doc, bound) ParamSpec::real(#name, fallback, doc) bound,
    return {LOCI_WILSON_COWAN_PARAMS(LOCI_SPEC)};
#undef LOCI_SPEC
  }

  static WilsonCowanParams read(const Params& p) {
    WilsonCowanParams k;
#define LOCI_READ(name, fallback, doc, bound) k.name = p.get(#name);
    LOCI_WILSON_COWAN_PARAMS(LOCI_READ)
#undef LOCI_READ
    return k;
  }
};

class WilsonCowan final : public Model {
 public:
  explicit WilsonCowan(const Params& p) : k_(WilsonCowanParams::read(p)) {}

  int variables() const override { return 2; }
  std::vector<std::string> variable_names() const override { return {"E", "I"}; }
  NoiseEntry noise_entry() const override { return NoiseEntry::additive; }

  void initial_state(std::size_t nodes, Rng& rng, double* x) const override {
    for (std::size_t k = 0; k < 2 * nodes; ++k) x[k] = rng.uniform(0.0, 0.5);
  }

  void drift(const Batch& batch, const double* x, const double*, double* f) const override {
    const std::size_t n = batch.block();
    batch.couple(x, 0, batch.scratch);
    const Constants c{1.0 / k_.tau_e, 1.0 / k_.tau_i, k_.w_ee,    k_.w_ei, k_.w_ie, k_.w_ii, k_.a_e,
                      k_.theta_e,     k_.a_i,         k_.theta_i, k_.p_e,  k_.p_i,  k_.g};
    wilson_cowan_field(n, x, x + n, batch.scratch, f, f + n, c);
  }

  void diffusion(const Batch& batch, const double*, double* out) const override {
    for (std::size_t k = 0; k < 2 * batch.block(); ++k) out[k] = k_.sigma;
  }

 private:
  WilsonCowanParams k_;
};

LOCI_REGISTER(ModelInfo,
              {"wilson_cowan",
               "Wilson-Cowan E/I pairs coupled through E: tau_e dE = -E + S_e(w_ee E - w_ei I + g W E + p_e), "
               "tau_i dI = -I + S_i(w_ie E - w_ii I + p_i), plus sigma dW; records E",
               WilsonCowanParams::specs(), [](const Params& p) { return std::make_unique<WilsonCowan>(p); }});

}  // namespace

}  // namespace loci::sim::dynamics
