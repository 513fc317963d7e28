// The pieces of a simulation step: the rate model against a step computed by hand, the coupling matrix, the
// vectorised exp, the ziggurat normals, the simulation's Box-Muller normals, and every registered model staying
// finite.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "cpu/fast_math.hpp"
#include "sim/dynamics/coupling.hpp"
#include "sim/dynamics/integrator.hpp"
#include "sim/dynamics/model.hpp"
#include "sim/dynamics/normal.hpp"
#include "sim/dynamics/normal_lanes.hpp"
#include "sim/dynamics/simulate.hpp"
#include "sim/graph/topologies.hpp"

using namespace loci::sim;
using namespace loci::sim::dynamics;

namespace {

// The path 0 - 1 - 2. In-degree normalisation: W = [[0, 1/2, 0], [1, 0, 1], [0, 1/2, 0]].
Coupling path3(Normalisation n = Normalisation::in_degree) { return Coupling::from_edges(3, {{0, 1}, {1, 2}}, n); }

std::vector<double> step(const std::string& integrator, std::vector<double> x, const std::vector<double>& z,
                         std::size_t lanes) {
  const auto model = make_model("rate");
  const auto method = make_integrator(integrator);
  const Coupling w = path3();
  std::vector<double> scratch(x.size()), work(method->workspace(x.size()));
  const Batch batch{3, lanes, &w, scratch.data()};
  method->step(*model, batch, 0.1, z.data(), x.data(), work.data());
  return x;
}

}  // namespace

TEST_CASE("rate model: one step equals the hand computation", "[network][dynamics]") {
  // x = (0.2, 0.5, 0.9), xi = (0.3, -1, 0.7), g = 4, s = 1, theta = 2, dt = tau = 0.1. Node 0 by hand:
  // u = 4 * (0.5 * 0.5) + 0.2 + 0.3 = 1.5; f = (phi(1.5) - 0.2) / 0.1 with phi(1.5) = 1 / (1 + e^0.5) = 0.3775406688;
  // Euler: x' = 0.2 + 0.1 f = phi(1.5). Heun then averages f with f at the Euler point (values below from the
  // same formulas in plain double arithmetic). The model evaluates phi in single precision (rate_model.cpp says
  // why), so the agreement is to about 2e-7, not to double's last digits.
  const std::vector<double> x = {0.2, 0.5, 0.9}, z = {0.3, -1.0, 0.7};
  const auto em = step("euler_maruyama", x, z, 1);
  CHECK(em[0] == Approx(1.0 / (1.0 + std::exp(0.5))).epsilon(5e-7));
  const double em_expected[] = {0.3775406687981454, 0.8698915256370021, 0.6456563062257954};
  const double heun_expected[] = {0.4014213312776832, 0.6884113176607836, 0.8237609752228224};
  const auto heun = step("heun", x, z, 1);
  for (int i = 0; i < 3; ++i) {
    CHECK(em[i] == Approx(em_expected[i]).epsilon(5e-7));
    CHECK(heun[i] == Approx(heun_expected[i]).epsilon(5e-7));
  }
  // Two runs side by side (lanes innermost): the first lane reproduces the single run bit for bit.
  std::vector<double> x2, z2;
  for (int i = 0; i < 3; ++i) {
    x2.insert(x2.end(), {x[i], 1.0 - x[i]});
    z2.insert(z2.end(), {z[i], -z[i]});
  }
  const auto heun2 = step("heun", x2, z2, 2);
  for (int i = 0; i < 3; ++i) CHECK(heun2[2 * i] == heun[i]);
}

TEST_CASE("coupling: normalisations - and dense equals sparse bit for bit", "[network][dynamics]") {
  const Coupling in = path3(Normalisation::in_degree), row = path3(Normalisation::row);
  const Eigen::MatrixXd w_in(in.matrix()), w_row(row.matrix());
  CHECK(w_in(1, 0) == 1.0);
  CHECK(w_in(0, 1) == 0.5);
  for (int j = 0; j < 3; ++j) CHECK(w_in.col(j).sum() == Approx(1.0));
  for (int i = 0; i < 3; ++i) CHECK(w_row.row(i).sum() == Approx(1.0));
  CHECK(Eigen::MatrixXd(path3(Normalisation::none).matrix()).sum() == 4.0);
  REQUIRE_THROWS(Coupling::from_edges(3, {{0, 1}, {1, 0}}, Normalisation::none));
  REQUIRE_THROWS(Coupling::from_edges(3, {{1, 1}}, Normalisation::none));

  Rng rng(5);
  const auto g = graph::erdos_renyi(graph::ErdosRenyiOptions().nodes(60).p(0.2), rng);
  const auto edges = graph::edge_list(g);
  const auto sparse = Coupling::from_edges(60, edges, Normalisation::in_degree, 1.1);
  const auto dense = Coupling::from_edges(60, edges, Normalisation::in_degree, 0.0);
  REQUIRE_FALSE(sparse.is_dense());
  REQUIRE(dense.is_dense());
  for (std::size_t lanes : {1, 3, 4, 8}) {
    std::vector<double> x(60 * lanes), a(x.size()), b(x.size());
    for (auto& v : x) v = rng.normal();
    sparse.apply(x.data(), a.data(), lanes);
    dense.apply(x.data(), b.data(), lanes);
    REQUIRE(a == b);
    // Lane l of a batch is W times lane l of the state.
    const Eigen::MatrixXd w(sparse.matrix());
    for (std::size_t l = 0; l < lanes; ++l)
      for (int i = 0; i < 60; ++i) {
        double expected = 0;
        for (int j = 0; j < 60; ++j) expected += w(i, j) * x[static_cast<std::size_t>(j) * lanes + l];
        REQUIRE(a[static_cast<std::size_t>(i) * lanes + l] == Approx(expected).margin(1e-12));
      }
  }
}

TEST_CASE("normal draws: the ziggurat's tables - normal_fill is ziggurat_normal in order", "[network][dynamics]") {
  const auto& t = ziggurat_tables();
  CHECK(t.r == Approx(3.6541528853610088).epsilon(1e-10));  // the known tail start for 256 layers
  CHECK(t.x[1] == t.r);
  CHECK(t.x[256] == 0.0);
  CHECK(t.f[256] == 1.0);
  Rng a = Rng::stream(2, "normal", 0), b = a;
  std::vector<double> filled(1001);
  normal_fill(a, filled.size(), filled.data());
  for (double v : filled) REQUIRE(v == ziggurat_normal(b));
  REQUIRE(a() == b());  // both streams advanced alike
  std::vector<double> strided(30, -99.0);
  Rng c = Rng::stream(2, "normal", 0);
  normal_fill(c, 10, strided.data() + 1, 3);
  for (int k = 0; k < 10; ++k) {
    REQUIRE(strided[1 + 3 * k] == filled[k]);
    REQUIRE(strided[3 * k] == -99.0);
  }
}

namespace {

// Draws that should be N(0, 1): their mean, variance, fourth moment and shares beyond 3 and 4 sd each within 5
// standard errors of the normal's, and a Kolmogorov-Smirnov test at 1%. Sorts `v`.
void check_standard_normal(std::vector<double>& v) {
  const double n = static_cast<double>(v.size());
  double mean = 0, m2 = 0, m4 = 0, beyond3 = 0, beyond4 = 0;
  for (double x : v)
    mean += x, m2 += x * x, m4 += x * x * x * x, beyond3 += std::abs(x) > 3, beyond4 += std::abs(x) > 4;
  mean /= n, m2 /= n, m4 /= n;
  CHECK(std::abs(mean) < 5 / std::sqrt(n));
  CHECK(m2 == Approx(1).margin(5 * std::sqrt(2.0 / n)));
  CHECK(m4 == Approx(3).margin(5 * std::sqrt(96.0 / n)));
  CHECK(beyond3 / n == Approx(0.0026998).margin(5 * std::sqrt(0.0027 / n)));
  CHECK(beyond4 / n == Approx(6.334e-5).margin(5 * std::sqrt(6.334e-5 / n)));
  std::sort(v.begin(), v.end());
  double d = 0;
  for (std::size_t i = 0; i < v.size(); ++i) {
    const double cdf = 0.5 * std::erfc(-v[i] / std::sqrt(2.0));
    d = std::max({d, std::abs(cdf - double(i) / n), std::abs(cdf - double(i + 1) / n)});
  }
  CHECK(d < 1.63 / std::sqrt(n));  // the 1% critical value
}

}  // namespace

TEST_CASE("normal draws: moments - tails and a Kolmogorov-Smirnov test", "[network][dynamics]") {
  Rng rng = Rng::stream(1, "normal", 1);
  const int n = 400000;
  std::vector<double> v(n);
  for (int first = 0, size = 1; first < n; first += size, size = size * 3 % 1001 + 1)
    normal_fill(rng, static_cast<std::size_t>(std::min(size, n - first)), v.data() + first);
  double tail = 0;
  for (double x : v) tail += std::abs(x) > ziggurat_tables().r;
  CHECK(tail / n == Approx(2.58e-4).margin(5 * std::sqrt(2.58e-4 / n)));  // the tail sampler's share
  check_standard_normal(v);
}

TEST_CASE("normal draws side by side: a stream's values do not depend on its neighbours", "[network][dynamics]") {
  // 8 and 4 streams fill an AVX-512 or AVX2 register; the other counts mix those groups with single streams. The
  // fill sizes include odd ones, whose last pair keeps only its cosine.
  const std::vector<std::size_t> sizes = {300, 7, 1, 64};
  for (std::size_t lanes : {1, 3, 4, 7, 8, 12, 19}) {
    INFO(lanes << " lanes");
    std::vector<Rng> streams;
    for (std::size_t l = 0; l < lanes; ++l) streams.push_back(Rng::stream(7, "lanes", l));
    NormalLanes together(streams);
    std::vector<NormalLanes> alone;
    for (const Rng& r : streams) alone.emplace_back(std::vector<Rng>{r});
    for (std::size_t count : sizes) {
      std::vector<double> side(count * lanes), single(count);
      together.fill(count, side.data());
      for (std::size_t l = 0; l < lanes; ++l) {
        alone[l].fill(count, single.data());
        for (std::size_t k = 0; k < count; ++k) REQUIRE(side[k * lanes + l] == single[k]);
      }
    }
  }
  // Different streams give different values; the same stream the same ones.
  std::vector<double> a(16), b(16), c(16);
  NormalLanes(std::vector<Rng>{Rng::stream(7, "lanes", 0)}).fill(16, a.data());
  NormalLanes(std::vector<Rng>{Rng::stream(7, "lanes", 0)}).fill(16, b.data());
  NormalLanes(std::vector<Rng>{Rng::stream(7, "lanes", 1)}).fill(16, c.data());
  REQUIRE(a == b);
  REQUIRE(a != c);
}

TEST_CASE("normal draws side by side: moments - tails - pairs and a Kolmogorov-Smirnov test", "[network][dynamics]") {
  std::vector<Rng> streams;
  for (std::uint64_t l = 0; l < 8; ++l) streams.push_back(Rng::stream(3, "lanes", l));
  NormalLanes draws(streams);
  const std::size_t per_fill = 501, fills = 100, n = per_fill * 8 * fills;
  std::vector<double> v(n);
  for (std::size_t f = 0; f < fills; ++f) draws.fill(per_fill, v.data() + f * per_fill * 8);
  // The cosine and the sine of one pair are uncorrelated (and independent for Box-Muller); so are neighbours.
  double pair = 0, next = 0;
  for (std::size_t f = 0; f < fills; ++f) {
    const double* block = v.data() + f * per_fill * 8;
    for (std::size_t k = 0; k < 250 * 8; ++k) pair += block[k] * block[k + 251 * 8];
    for (std::size_t k = 0; k + 8 < per_fill * 8; ++k) next += block[k] * block[k + 8];
  }
  CHECK(std::abs(pair / (250.0 * 8 * fills)) < 5 / std::sqrt(250.0 * 8 * fills));
  CHECK(std::abs(next / (500.0 * 8 * fills)) < 5 / std::sqrt(500.0 * 8 * fills));
  check_standard_normal(v);
}

TEST_CASE("every registered model runs finite and moves", "[network][dynamics]") {
  const auto names = model_names();
  for (const char* n : {"rate", "ornstein_uhlenbeck", "wilson_cowan", "stuart_landau"})
    REQUIRE(std::find(names.begin(), names.end(), n) != names.end());
  Rng rng(9);
  const auto g = graph::random_geometric(graph::GeometricOptions().nodes(40).radius(0.3), rng);
  const auto w = Coupling::from_edges(40, graph::edge_list(g), Normalisation::in_degree);
  for (const auto& name : names) {
    for (const auto& integrator : integrator_names()) {
      INFO(name << " with " << integrator);
      const auto model = make_model(name);
      const auto out = simulate(*model, *make_integrator(integrator), w, 1, {{"smoke", 0}, {"smoke", 1}},
                                SimulationOptions().dt(0.05).burn_in(200).points(300).threads(1));
      for (const auto& r : out) {
        double lo = 1e300, hi = -1e300;
        for (float v : r.values) {
          REQUIRE(std::isfinite(v));
          lo = std::min<double>(lo, v), hi = std::max<double>(hi, v);
        }
        CHECK(hi - lo > 1e-3);
      }
    }
  }
  REQUIRE_THROWS_WITH(make_model("rate", {{"tua", 1.0}}), Catch::Contains("did you mean 'tau'"));
  REQUIRE_THROWS_WITH(make_model("hodgkin_huxley"), Catch::Contains("known: "));
  REQUIRE_THROWS_WITH(make_integrator("rk4"), Catch::Contains("known: "));
}
