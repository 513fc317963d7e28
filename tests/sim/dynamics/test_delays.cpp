// Conduction delays in the coupling (sim/dynamics/history.hpp, Coupling::delay_by): steps against a recursion
// written out by hand, a driven node lagging its driver by the delay, and determinism across threads and batching.
#include <catch2/catch.hpp>

#include <cmath>
#include <vector>

#include "sim/dynamics/coupling.hpp"
#include "sim/dynamics/history.hpp"
#include "sim/dynamics/integrator.hpp"
#include "sim/dynamics/model.hpp"
#include "sim/dynamics/simulate.hpp"

using namespace loci::sim;
using namespace loci::sim::dynamics;

namespace {

// Entry (i, j): node j drives node i with weight w and delay d steps.
struct Entry {
  int i, j;
  double w;
  std::int64_t d;
};

Coupling directed(int nodes, const std::vector<Entry>& entries) {
  std::vector<Eigen::Triplet<double>> t;
  for (const auto& e : entries) t.emplace_back(e.i, e.j, e.w);
  Coupling::Sparse m(nodes, nodes);
  m.setFromTriplets(t.begin(), t.end());
  Coupling c(std::move(m));
  c.delay_by([&](std::size_t i, std::size_t j) {
    for (const auto& e : entries)
      if (static_cast<std::size_t>(e.i) == i && static_cast<std::size_t>(e.j) == j) return e.d;
    return std::int64_t{-1};  // never asked: W has no such entry
  });
  return c;
}

// Lagged correlation of a[t] with b[t - lag] over the series' overlap.
double lagged_correlation(const float* a, const float* b, std::size_t n, std::size_t lag) {
  double ma = 0, mb = 0;
  const std::size_t m = n - lag;
  for (std::size_t t = lag; t < n; ++t) ma += a[t], mb += b[t - lag];
  ma /= static_cast<double>(m), mb /= static_cast<double>(m);
  double ab = 0, aa = 0, bb = 0;
  for (std::size_t t = lag; t < n; ++t) {
    const double x = a[t] - ma, y = b[t - lag] - mb;
    ab += x * y, aa += x * x, bb += y * y;
  }
  return ab / std::sqrt(aa * bb);
}

}  // namespace

TEST_CASE("delayed coupling: Euler and Heun steps equal the delay recursion by hand", "[network][dynamics][delays]") {
  // Linear, noiseless: dx_i/dt = -x_i + sum_j W_ij x_j(t - d_ij), with W_01 = 0.5 (delay 3 steps), W_10 = -0.3
  // (delay 1), W_11 = 0.2 (delay 0), and the constant past x(t < 0) = x(0).
  const Coupling w = directed(2, {{0, 1, 0.5, 3}, {1, 0, -0.3, 1}, {1, 1, 0.2, 0}});
  REQUIRE(w.has_delays());
  CHECK(w.max_delay() == 3);
  CHECK(w.delay(0, 1) == 3);
  CHECK(w.delay(1, 1) == 0);
  const auto model = make_model("ornstein_uhlenbeck", {{"tau", 1.0}, {"g", 1.0}, {"sigma", 0.0}});
  const double dt = 0.1;
  const int steps = 12;

  for (const std::string name : {"euler_maruyama", "heun"}) {
    // By hand: past[n] is x after n steps.
    std::vector<std::vector<double>> past = {{1.0, -0.5}};
    auto delayed = [&](int n, int node, std::int64_t d, const std::vector<double>& now) {
      if (d == 0) return now[static_cast<std::size_t>(node)];
      const long m = std::max<long>(0, n - static_cast<long>(d));
      return past[static_cast<std::size_t>(m)][static_cast<std::size_t>(node)];
    };
    auto field = [&](int n, const std::vector<double>& x) {  // the drift at step time n, state x
      return std::vector<double>{-x[0] + 0.5 * delayed(n, 1, 3, x),
                                 -x[1] - 0.3 * delayed(n, 0, 1, x) + 0.2 * delayed(n, 1, 0, x)};
    };
    for (int n = 0; n < steps; ++n) {
      const auto& x = past.back();
      const auto f1 = field(n, x);
      std::vector<double> next = {x[0] + dt * f1[0], x[1] + dt * f1[1]};
      if (name == "heun") {
        const auto f2 = field(n + 1, next);
        next = {x[0] + 0.5 * dt * (f1[0] + f2[0]), x[1] + 0.5 * dt * (f1[1] + f2[1])};
      }
      past.push_back(next);
    }

    const auto method = make_integrator(name);
    std::vector<double> x = {1.0, -0.5}, z(2, 0.0), scratch(2), work(method->workspace(2));
    StateHistory history(w.max_delay(), 2);
    history.reset(x.data());
    Batch batch{2, 1, &w, scratch.data()};
    batch.history = &history;
    for (int n = 0; n < steps; ++n) {
      method->step(*model, batch, dt, z.data(), x.data(), work.data());
      history.push(x.data());
      INFO(name << " step " << n + 1);
      CHECK(x[0] == Approx(past[static_cast<std::size_t>(n + 1)][0]).epsilon(1e-14));
      CHECK(x[1] == Approx(past[static_cast<std::size_t>(n + 1)][1]).epsilon(1e-14));
    }
  }
}

TEST_CASE("delayed coupling: a driven node follows its driver the delay later", "[network][dynamics][delays]") {
  // Node 1 is free noise (OU); node 0 only listens to node 1, D steps late. The correlation of x0(t) with
  // x1(t - k) peaks just after k = D; without the delay just after 0.
  const std::int64_t D = 25;
  const auto model = make_model("ornstein_uhlenbeck", {{"tau", 0.5}, {"g", 1.0}, {"sigma", 1.0}});
  const auto heun = make_integrator("heun");
  const auto options = SimulationOptions().dt(0.05).burn_in(200).points(20000).subsample(1).threads(1);
  auto peak = [&](std::int64_t delay) {
    const Coupling w = directed(2, {{0, 1, 1.0, delay}});
    const auto run = simulate(*model, *heun, w, 5, {{"lag", 0}}, options).front();
    std::size_t best = 0;
    double top = -2;
    for (std::size_t k = 0; k < static_cast<std::size_t>(3 * D); ++k) {
      const double c = lagged_correlation(run.node(0), run.node(1), 20000, k);
      if (c > top) top = c, best = k;
    }
    CHECK(top > 0.3);
    return best;
  };
  const std::size_t instantaneous = peak(0), late = peak(D);
  CHECK(instantaneous <= 10);  // tau / dt = 10 steps of smoothing
  CHECK(late >= static_cast<std::size_t>(D));
  CHECK(late <= static_cast<std::size_t>(D) + 10);
}

TEST_CASE("delayed coupling: same numbers for 1 and 2 threads and any batching", "[network][dynamics][delays]") {
  std::vector<Entry> ring;
  const int n = 12;
  for (int i = 0; i < n; ++i) {
    ring.push_back({i, (i + 1) % n, 0.5, 1 + i % 4});
    ring.push_back({(i + 1) % n, i, 0.5, 2 + i % 3});
  }
  const Coupling w = directed(n, ring);
  const auto model = make_model("rate");
  const auto heun = make_integrator("heun");
  std::vector<RunId> runs;
  for (std::uint64_t r = 0; r < 5; ++r) runs.push_back({"ring", r});
  const auto base = SimulationOptions().burn_in(50).points(40);
  const auto one = simulate(*model, *heun, w, 9, runs, SimulationOptions(base).threads(1).lanes(16));
  const auto two = simulate(*model, *heun, w, 9, runs, SimulationOptions(base).threads(2).lanes(1));
  const auto four = simulate(*model, *heun, w, 9, runs, SimulationOptions(base).threads(2).lanes(4));
  for (std::size_t r = 0; r < runs.size(); ++r) {
    CHECK(one[r].values == two[r].values);
    CHECK(one[r].values == four[r].values);
  }
  // And the delays matter: the same network without them gives other numbers.
  Coupling instant = directed(n, ring);
  instant.delay_by([](std::size_t, std::size_t) { return std::int64_t{0}; });
  CHECK_FALSE(instant.has_delays());
  const auto plain = simulate(*model, *heun, instant, 9, runs, SimulationOptions(base).threads(1));
  CHECK(plain[0].values != one[0].values);
}

TEST_CASE("delayed coupling: a step without the state history is refused, not made instantaneous",
          "[network][dynamics][delays]") {
  const Coupling w = directed(2, {{0, 1, 0.5, 3}});
  const auto model = make_model("ornstein_uhlenbeck");
  const auto euler = make_integrator("euler_maruyama");
  std::vector<double> x = {1.0, -0.5}, z(2, 0.0), scratch(2), work(euler->workspace(2));
  const Batch batch{2, 1, &w, scratch.data()};
  CHECK_THROWS_WITH(euler->step(*model, batch, 0.1, z.data(), x.data(), work.data()),
                    Catch::Contains("no state history"));
}

TEST_CASE("delayed coupling: a negative delay is refused naming the entry", "[network][dynamics][delays]") {
  Coupling w = Coupling::from_edges(3, {{0, 1}, {1, 2}}, Normalisation::in_degree);
  CHECK_THROWS_WITH(w.delay_by([](std::size_t i, std::size_t) { return i == 2 ? std::int64_t{-1} : std::int64_t{1}; }),
                    Catch::Contains("from node 1 to node 2"));
}
