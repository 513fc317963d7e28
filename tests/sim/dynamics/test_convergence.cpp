// Euler-Maruyama and stochastic Heun converge at their orders on linear SDEs whose solutions are known.
//
// Strong: geometric Brownian motion dX = mu X dt + sigma X dW has the pathwise solution
// X_T = exp((mu - sigma^2/2) T + sigma W_T) (Ito, Euler-Maruyama's limit) or exp(mu T + sigma W_T) (Stratonovich,
// Heun's limit). Coarse steps use sums of one fine Brownian path, so the mean |error| over 2000 paths falls as
// dt^(1/2) for Euler-Maruyama and dt^1 for Heun.
//
// Weak: for Ornstein-Uhlenbeck dX = -lambda X dt + sigma dW both schemes are linear in the draws,
// X_N = A x0 + sum_j c_j z_j, so their exact mean (A x0) and variance (sum c_j^2) come from running the integrator on
// unit impulses, with no sampling error at all. Their errors against the known moments fall as dt^1 and dt^2.
#include <catch2/catch.hpp>

#include <cmath>
#include <vector>

#include "sim/dynamics/integrator.hpp"
#include "sim/dynamics/model.hpp"
#include "sim/dynamics/normal.hpp"

using namespace loci::sim;
using namespace loci::sim::dynamics;

namespace {

// Independent geometric Brownian motions, one per "node"; no coupling.
class GeometricBrownian final : public Model {
 public:
  GeometricBrownian(double mu, double sigma) : mu_(mu), sigma_(sigma) {}
  int variables() const override { return 1; }
  std::vector<std::string> variable_names() const override { return {"x"}; }
  NoiseEntry noise_entry() const override { return NoiseEntry::multiplicative; }
  void initial_state(std::size_t nodes, Rng&, double* x) const override { std::fill(x, x + nodes, 1.0); }
  void drift(const Batch& b, const double* x, const double*, double* f) const override {
    for (std::size_t k = 0; k < b.block(); ++k) f[k] = mu_ * x[k];
  }
  void diffusion(const Batch& b, const double* x, double* g) const override {
    for (std::size_t k = 0; k < b.block(); ++k) g[k] = sigma_ * x[k];
  }

 private:
  double mu_, sigma_;
};

double slope(const std::vector<double>& dt, const std::vector<double>& err) {
  double mx = 0, my = 0;
  for (std::size_t i = 0; i < dt.size(); ++i) mx += std::log(dt[i]), my += std::log(err[i]);
  mx /= dt.size(), my /= dt.size();
  double sxy = 0, sxx = 0;
  for (std::size_t i = 0; i < dt.size(); ++i) {
    sxy += (std::log(dt[i]) - mx) * (std::log(err[i]) - my);
    sxx += (std::log(dt[i]) - mx) * (std::log(dt[i]) - mx);
  }
  return sxy / sxx;
}

double strong_order(const std::string& integrator, bool stratonovich) {
  const double mu = 1.0, sigma = 0.8, T = 1.0;
  const std::size_t paths = 2000, fine = 512;
  const GeometricBrownian model(mu, sigma);
  const auto method = make_integrator(integrator);
  // z[s * paths + p]: the fine path's standard normal draws.
  std::vector<double> z(fine * paths);
  Rng rng = Rng::stream(2024, "brownian", 0);
  normal_fill(rng, z.size(), z.data());
  std::vector<double> exact(paths);
  for (std::size_t p = 0; p < paths; ++p) {
    double w = 0;
    for (std::size_t s = 0; s < fine; ++s) w += std::sqrt(T / fine) * z[s * paths + p];
    exact[p] = std::exp((stratonovich ? mu : mu - 0.5 * sigma * sigma) * T + sigma * w);
  }
  std::vector<double> dts, errors;
  for (std::size_t steps : {8, 16, 32, 64, 128}) {
    const std::size_t block = fine / steps;
    std::vector<double> x(paths, 1.0), zc(paths), work(method->workspace(paths));
    const Batch batch{paths, 1, nullptr, nullptr};
    for (std::size_t s = 0; s < steps; ++s) {
      std::fill(zc.begin(), zc.end(), 0.0);
      for (std::size_t f = s * block; f < (s + 1) * block; ++f)
        for (std::size_t p = 0; p < paths; ++p) zc[p] += z[f * paths + p];
      for (auto& v : zc) v /= std::sqrt(static_cast<double>(block));  // the coarse step's standard normal
      method->step(model, batch, T / steps, zc.data(), x.data(), work.data());
    }
    double err = 0;
    for (std::size_t p = 0; p < paths; ++p) err += std::abs(x[p] - exact[p]);
    dts.push_back(T / steps);
    errors.push_back(err / paths);
  }
  return slope(dts, errors);
}

struct WeakOrders {
  double mean, variance;
};

WeakOrders weak_orders(const std::string& integrator) {
  const double lambda = 1.0, sigma = 1.0, T = 1.0;
  const auto model = make_model("ornstein_uhlenbeck", {{"tau", 1.0 / lambda}, {"g", 0.0}, {"sigma", sigma}});
  const auto method = make_integrator(integrator);
  std::vector<double> dts, mean_err, var_err;
  for (std::size_t steps : {4, 8, 16, 32, 64}) {
    // Node 0 answers x0 = 1 without noise; node 1 + j starts at 0 and gets one unit draw at step j.
    const std::size_t nodes = steps + 1;
    const auto w = Coupling::from_edges(nodes, {}, Normalisation::none);
    std::vector<double> x(nodes, 0.0), z(nodes), scratch(nodes), work(method->workspace(nodes));
    x[0] = 1.0;
    const Batch batch{nodes, 1, &w, scratch.data()};
    for (std::size_t s = 0; s < steps; ++s) {
      std::fill(z.begin(), z.end(), 0.0);
      z[1 + s] = 1.0;
      method->step(*model, batch, T / steps, z.data(), x.data(), work.data());
    }
    double variance = 0;
    for (std::size_t j = 1; j < nodes; ++j) variance += x[j] * x[j];
    dts.push_back(T / steps);
    mean_err.push_back(std::abs(x[0] - std::exp(-lambda * T)));
    var_err.push_back(std::abs(variance - sigma * sigma * (1 - std::exp(-2 * lambda * T)) / (2 * lambda)));
  }
  return {slope(dts, mean_err), slope(dts, var_err)};
}

}  // namespace

TEST_CASE("strong order on geometric Brownian motion: Euler-Maruyama 1/2 - Heun 1", "[network][convergence]") {
  const double em = strong_order("euler_maruyama", false);
  const double heun = strong_order("heun", true);
  INFO("Euler-Maruyama " << em << ", Heun " << heun);
  CHECK(em > 0.4);
  CHECK(em < 0.6);
  CHECK(heun > 0.85);
  CHECK(heun < 1.15);
}

TEST_CASE("weak order on Ornstein-Uhlenbeck moments: Euler-Maruyama 1 - Heun 2", "[network][convergence]") {
  const auto em = weak_orders("euler_maruyama");
  const auto heun = weak_orders("heun");
  INFO("Euler-Maruyama mean " << em.mean << " variance " << em.variance << "; Heun mean " << heun.mean << " variance "
                              << heun.variance);
  CHECK(em.mean == Approx(1.0).margin(0.1));
  CHECK(em.variance == Approx(1.0).margin(0.1));
  CHECK(heun.mean == Approx(2.0).margin(0.15));
  CHECK(heun.variance == Approx(2.0).margin(0.15));
}
