#include "cpu/clones.hpp"  // first: it sets how the loops below are compiled

#include "sim/volume/balloon.hpp"

#include <cmath>
#include <stdexcept>
#include <vector>

#include "cpu/fast_math.hpp"

namespace loci::sim::volume {

namespace {

struct State {
  std::vector<double> s, lf, lv, lq, u;
};

// One Euler step of every token at once (tokens innermost, so the loop vectorises).
LOCI_CLONES void euler(State& x, std::size_t n, double h, double kappa, double gamma, double inv_tau, double inv_alpha,
                       double log_1_e0, double inv_e0) {
  double* s = x.s.data();
  double* lf = x.lf.data();
  double* lv = x.lv.data();
  double* lq = x.lq.data();
  const double* u = x.u.data();
#pragma omp simd
  for (std::size_t i = 0; i < n; ++i) {
    const double f = cpu::exp_fast(lf[i]), v = cpu::exp_fast(lv[i]), q = cpu::exp_fast(lq[i]);
    const double outflow = cpu::exp_fast(lv[i] * inv_alpha);  // v^(1/alpha)
    const double extraction = 1.0 - cpu::exp_fast(log_1_e0 / f);
    const double ds = u[i] - kappa * s[i] - gamma * (f - 1.0);
    const double dlf = s[i] / f;
    const double dlv = (f - outflow) * inv_tau / v;
    const double dlq = (f * extraction * inv_e0 - outflow * q / v) * inv_tau / q;
    s[i] += h * ds, lf[i] += h * dlf, lv[i] += h * dlv, lq[i] += h * dlq;
  }
}

}  // namespace

void balloon_bold(float* series, std::size_t tokens, std::int64_t points, double tr_s, const BalloonOptions& o) {
  if (!(tr_s > 0) || !(o.kappa() > 0) || !(o.gamma() > 0) || !(o.tau() > 0) || !(o.alpha() > 0) ||
      !(o.e0() > 0 && o.e0() < 1) || !(o.v0() > 0) || !(o.max_step_s() > 0))
    throw std::invalid_argument("balloon: tr and kappa, gamma, tau, alpha, V0, max_step_s must be > 0, E0 in (0, 1)");
  const auto substeps = static_cast<std::int64_t>(std::ceil(tr_s / o.max_step_s() - 1e-9));
  const double h = tr_s / static_cast<double>(substeps);
  const double k1 = 7.0 * o.e0(), k2 = 2.0, k3 = 2.0 * o.e0() - 0.2;
  State x;
  x.s.assign(tokens, 0.0), x.lf.assign(tokens, 0.0), x.lv.assign(tokens, 0.0), x.lq.assign(tokens, 0.0);
  x.u.assign(tokens, 0.0);
  const auto n = static_cast<std::size_t>(points);
  for (std::size_t t = 0; t < n; ++t) {
    for (std::size_t i = 0; i < tokens; ++i) x.u[i] = o.gain() * static_cast<double>(series[i * n + t]);
    for (std::int64_t k = 0; k < substeps; ++k)
      euler(x, tokens, h, o.kappa(), o.gamma(), 1.0 / o.tau(), 1.0 / o.alpha(), std::log(1.0 - o.e0()), 1.0 / o.e0());
    for (std::size_t i = 0; i < tokens; ++i) {
      const double v = std::exp(x.lv[i]), q = std::exp(x.lq[i]);
      series[i * n + t] = static_cast<float>(o.v0() * (k1 * (1.0 - q) + k2 * (1.0 - q / v) + k3 * (1.0 - v)));
    }
  }
}

}  // namespace loci::sim::volume
