// Whole runs: determinism across thread counts and batching, what burn-in / subsample / observation noise mean,
// divergence reported, the recordings' memory, and the property the task relies on: nearby nodes are more
// correlated.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <map>
#include <vector>

#include "sim/dynamics/buffers.hpp"
#include "sim/dynamics/integrator.hpp"
#include "sim/dynamics/model.hpp"
#include "sim/dynamics/simulate.hpp"
#include "sim/graph/metrics.hpp"
#include "sim/graph/topologies.hpp"

using namespace loci::sim;
using namespace loci::sim::dynamics;

namespace {

struct Setup {
  graph::SpatialGraph g;
  Coupling w;
};

Setup geometric(std::size_t nodes) {
  Rng rng = Rng::stream(3, "graph", 0);
  auto g = graph::random_geometric(graph::GeometricOptions().nodes(nodes).radius(0.2), rng);
  auto w = Coupling::from_edges(nodes, graph::edge_list(g), Normalisation::in_degree);
  return {std::move(g), std::move(w)};
}

std::vector<RunId> runs(std::size_t count, const std::string& stream = "noise0") {
  std::vector<RunId> out;
  for (std::size_t r = 0; r < count; ++r) out.push_back({stream, r});
  return out;
}

// Mean Pearson correlation of node pairs, by hop count (capped at `cap`).
std::map<int, double> correlation_by_hops(const graph::SpatialGraph& g, const Recording& r, int cap) {
  const std::size_t n = g.nodes();
  const auto t = static_cast<std::size_t>(r.points);
  std::vector<double> mean(n, 0), sd(n, 0);
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t k = 0; k < t; ++k) mean[i] += r.node(i)[k];
    mean[i] /= t;
    for (std::size_t k = 0; k < t; ++k) sd[i] += (r.node(i)[k] - mean[i]) * (r.node(i)[k] - mean[i]);
    sd[i] = std::sqrt(sd[i] / t);
  }
  const auto hops = graph::hop_matrix(g);
  std::map<int, double> sum, count;
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = i + 1; j < n; ++j) {
      double c = 0;
      for (std::size_t k = 0; k < t; ++k) c += (r.node(i)[k] - mean[i]) * (r.node(j)[k] - mean[j]);
      const int h = std::min(hops[i * n + j], cap);
      sum[h] += c / t / (sd[i] * sd[j]);
      count[h] += 1;
    }
  for (auto& [h, s] : sum) s /= count[h];
  return sum;
}

}  // namespace

TEST_CASE("same seed - same data: 1 or 2 threads - any batching", "[network][simulate]") {
  const auto s = geometric(60);
  const auto model = make_model("rate");
  const auto heun = make_integrator("heun");
  const auto base = SimulationOptions().burn_in(50).points(200);
  const auto one = simulate(*model, *heun, s.w, 42, runs(7), SimulationOptions(base).threads(1));
  const auto two = simulate(*model, *heun, s.w, 42, runs(7), SimulationOptions(base).threads(2));
  const auto narrow = simulate(*model, *heun, s.w, 42, runs(7), SimulationOptions(base).threads(2).lanes(3));
  const auto alone = simulate(*model, *heun, s.w, 42, {{"noise0", 4}}, SimulationOptions(base).threads(1).lanes(1));
  for (std::size_t r = 0; r < 7; ++r) {
    REQUIRE(one[r].values == two[r].values);
    REQUIRE(one[r].values == narrow[r].values);
  }
  REQUIRE(alone[0].values == one[4].values);
  REQUIRE(one[0].values != one[1].values);
  const auto other_seed = simulate(*model, *heun, s.w, 43, runs(1), SimulationOptions(base).threads(1));
  REQUIRE(other_seed[0].values != one[0].values);
  const auto other_stream = simulate(*model, *heun, s.w, 42, runs(1, "noise1"), SimulationOptions(base).threads(1));
  REQUIRE(other_stream[0].values != one[0].values);
}

TEST_CASE("points are the state after burn_in + t * subsample steps", "[network][simulate]") {
  const auto s = geometric(30);
  const auto model = make_model("ornstein_uhlenbeck");
  const auto em = make_integrator("euler_maruyama");
  const auto every = simulate(*model, *em, s.w, 1, runs(2), SimulationOptions().burn_in(0).points(23));
  const auto some = simulate(*model, *em, s.w, 1, runs(2), SimulationOptions().burn_in(10).subsample(3).points(5));
  for (std::size_t r = 0; r < 2; ++r)
    for (std::size_t i = 0; i < 30; ++i)
      for (std::size_t t = 0; t < 5; ++t) REQUIRE(some[r].node(i)[t] == every[r].node(i)[10 + 3 * t]);
  REQUIRE(steps_per_run(SimulationOptions().burn_in(10).subsample(3).points(5)) == 22);
}

TEST_CASE("observation noise is added on top of unchanged dynamics", "[network][simulate]") {
  const auto s = geometric(50);
  const auto model = make_model("rate");
  const auto heun = make_integrator("heun");
  const auto clean = simulate(*model, *heun, s.w, 5, runs(1), SimulationOptions().points(2000));
  const auto noisy = simulate(*model, *heun, s.w, 5, runs(1), SimulationOptions().points(2000).observation_noise(0.1));
  double m = 0, m2 = 0;
  const std::size_t n = clean[0].values.size();
  for (std::size_t k = 0; k < n; ++k) {
    const double d = noisy[0].values[k] - clean[0].values[k];
    m += d, m2 += d * d;
  }
  CHECK(m / n == Approx(0).margin(0.002));
  CHECK(std::sqrt(m2 / n) == Approx(0.1).epsilon(0.02));
}

TEST_CASE("a diverging run is reported - naming it", "[network][simulate]") {
  const auto s = geometric(30);
  const auto unstable = make_model("ornstein_uhlenbeck", {{"g", 5.0}});
  REQUIRE_THROWS_WITH(simulate(*unstable, *make_integrator("heun"), s.w, 1, runs(3),
                               SimulationOptions().dt(0.5).burn_in(5000).points(10)),
                      Catch::Contains("run 'noise0' #0 diverged"));
  REQUIRE_THROWS_WITH(check(SimulationOptions().subsample(0)), Catch::Contains("subsample"));
}

TEST_CASE("recordings share one arena - copies and overflow go to the heap", "[network][simulate]") {
  const auto arena = std::make_shared<HugePageArena>(1000);
  using Values = std::vector<float, ArenaAllocator<float>>;
  Values a{ArenaAllocator<float>(arena)}, b{ArenaAllocator<float>(arena)};
  a.assign(100, 1.0f);
  b.assign(100, 2.0f);
  REQUIRE(arena->holds(a.data()));
  REQUIRE(arena->holds(b.data()));
  REQUIRE(reinterpret_cast<std::uintptr_t>(b.data()) % 64 == 0);
  REQUIRE(b.data() >= a.data() + 100);  // no overlap
  const Values copy = a;                // an independent heap copy
  REQUIRE_FALSE(arena->holds(copy.data()));
  REQUIRE(copy == a);
  Values big{ArenaAllocator<float>(arena)};
  big.assign(std::size_t{1} << 20, 3.0f);  // more than the arena's 2 MiB page left: the heap
  REQUIRE_FALSE(arena->holds(big.data()));
  REQUIRE(big.back() == 3.0f);
  // A simulation's recordings come from one arena and outlive the call.
  const auto s = geometric(20);
  auto out = simulate(*make_model("ornstein_uhlenbeck"), *make_integrator("heun"), s.w, 1, runs(3),
                      SimulationOptions().burn_in(0).points(10));
  REQUIRE(out[0].values.get_allocator().arena != nullptr);
  REQUIRE(out[0].values.get_allocator() == out[2].values.get_allocator());
  const Recording kept = std::move(out[1]);
  out.clear();
  REQUIRE(kept.values.size() == 200);
  for (float v : kept.values) REQUIRE(std::isfinite(v));
}

TEST_CASE("node-pair correlation falls with distance on a lattice", "[network][simulate]") {
  const auto lattice = graph::lattice(graph::LatticeOptions().side(10).dims(2).periodic(true));
  const auto w = Coupling::from_edges(lattice.nodes(), graph::edge_list(lattice), Normalisation::in_degree);
  for (const char* name : {"rate", "ornstein_uhlenbeck"}) {
    INFO(name);
    const auto model =
        make_model(name, std::string(name) == "ornstein_uhlenbeck" ? std::map<std::string, double>{{"g", 0.9}}
                                                                   : std::map<std::string, double>{});
    const auto out = simulate(*model, *make_integrator("heun"), w, 8, runs(1),
                              SimulationOptions().burn_in(500).points(20000).threads(1));
    const auto c = correlation_by_hops(lattice, out[0], 5);
    INFO("by hops: 1 " << c.at(1) << ", 2 " << c.at(2) << ", 3 " << c.at(3) << ", 4 " << c.at(4) << ", 5+ " << c.at(5));
    CHECK(c.at(1) > 0.05);
    for (int h = 1; h < 5; ++h) CHECK(c.at(h) > c.at(h + 1));
  }
}
