// Every topology builds a simple graph with the edge count or degrees it should have; exact where the topology is
// deterministic given the coordinates, within sampling error (5 sd) where edges are random.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <set>

#include "sim/graph/metrics.hpp"
#include "sim/graph/placement.hpp"
#include "sim/graph/topologies.hpp"
#include "sim/graph/topology.hpp"

using namespace loci::sim;
using namespace loci::sim::graph;

namespace {

// No self-loops, no parallel edges, a symmetric adjacency that agrees with the edge count and the degrees.
void require_simple(const SpatialGraph& g) {
  const auto edges = edge_list(g);
  REQUIRE(edges.size() == g.edges());
  std::set<std::pair<std::size_t, std::size_t>> distinct(edges.begin(), edges.end());
  REQUIRE(distinct.size() == edges.size());
  for (const auto& [u, v] : edges) REQUIRE(u < v);
  const auto a = adjacency_matrix(g);
  const std::size_t n = g.nodes();
  std::size_t ones = 0;
  for (std::size_t u = 0; u < n; ++u) {
    REQUIRE(a[u * n + u] == 0);
    for (std::size_t v = 0; v < n; ++v) {
      REQUIRE(a[u * n + v] == a[v * n + u]);
      ones += a[u * n + v];
    }
  }
  REQUIRE(ones == 2 * g.edges());
  std::size_t degree_sum = 0;
  for (auto d : degrees(g)) degree_sum += d;
  REQUIRE(degree_sum == 2 * g.edges());
}

// Independent edges with probabilities p: the realised count is within 5 sd of the sum of p.
void require_within_sampling_error(double realised, const std::vector<double>& p) {
  double mean = 0, var = 0;
  for (double q : p) mean += q, var += q * (1 - q);
  INFO("realised " << realised << ", expected " << mean << " +- " << std::sqrt(var));
  REQUIRE(std::abs(realised - mean) < 5 * std::sqrt(var) + 1e-9);
}

}  // namespace

TEST_CASE("lattice: side^dims nodes - axis neighbours - hops are Manhattan distances", "[network][topology]") {
  for (int dims = 1; dims <= 3; ++dims) {
    const std::size_t side = dims == 3 ? 4 : 6;
    for (bool periodic : {false, true}) {
      const auto g = lattice(LatticeOptions().side(side).dims(dims).periodic(periodic));
      require_simple(g);
      const std::size_t n = g.nodes();
      REQUIRE(n == static_cast<std::size_t>(std::pow(side, dims)));
      // Open: each axis has side - 1 links per line, side^(dims-1) lines; periodic adds the wrap link.
      const std::size_t per_line = periodic ? side : side - 1;
      REQUIRE(g.edges() == static_cast<std::size_t>(dims) * per_line * n / side);
      if (periodic)
        for (auto d : degrees(g)) REQUIRE(d == static_cast<std::size_t>(2 * dims));
      const auto hops = hop_matrix(g);
      for (std::size_t u = 0; u < n; ++u)
        for (std::size_t v = 0; v < n; ++v) {
          int manhattan = 0;
          for (int a = 0; a < dims; ++a) {
            auto d = static_cast<int>(std::lround(std::abs(g.positions(u, a) - g.positions(v, a)) * side));
            if (periodic) d = std::min(d, static_cast<int>(side) - d);
            manhattan += d;
          }
          REQUIRE(hops[u * n + v] == manhattan);
        }
    }
  }
}

TEST_CASE("lattice through the registry checks nodes is a power", "[network][topology]") {
  Rng rng(1);
  REQUIRE(make_topology("lattice", GraphOptions().nodes(100).dims(2), {}, rng).edges() == 180);
  REQUIRE_THROWS_WITH(make_topology("lattice", GraphOptions().nodes(99).dims(2), {}, rng),
                      Catch::Contains("must be side^2"));
  REQUIRE(grid_side(125, 3) == 5);
  REQUIRE(grid_side(126, 3) == 0);
}

TEST_CASE("random geometric: exactly the pairs closer than the radius - expected count over placements",
          "[network][topology]") {
  const double r = 0.1;
  const std::size_t n = 200;
  double total_open = 0, total_periodic = 0;
  const int graphs = 20;
  for (int s = 0; s < graphs; ++s) {
    for (bool periodic : {false, true}) {
      auto rng = Rng::stream(7, "geometric", static_cast<std::uint64_t>(s));
      const auto g = random_geometric(GeometricOptions().nodes(n).radius(r).periodic(periodic), rng);
      require_simple(g);
      std::size_t close = 0;
      for (std::size_t u = 0; u < n; ++u)
        for (std::size_t v = u + 1; v < n; ++v) {
          const bool near = distance(g, u, v) < r;
          close += near;
          REQUIRE(g.has_edge(u, v) == near);
        }
      REQUIRE(close == g.edges());
      (periodic ? total_periodic : total_open) += static_cast<double>(g.edges());
    }
  }
  // Two uniform points in the unit square are within r with probability pi r^2 - 8/3 r^3 + r^4 / 2 (pi r^2 on
  // the torus). Edges of one graph are dependent, so the check is on the mean over graphs, to 5%.
  const double pairs = n * (n - 1) / 2.0;
  REQUIRE(total_open / graphs ==
          Approx(pairs * (M_PI * r * r - 8.0 / 3 * r * r * r + r * r * r * r / 2)).epsilon(0.05));
  REQUIRE(total_periodic / graphs == Approx(pairs * M_PI * r * r).epsilon(0.05));
}

TEST_CASE("waxman: edge count within sampling error of the sum of beta exp(-d / (alpha L))", "[network][topology]") {
  for (int dims : {2, 3}) {
    auto rng = Rng::stream(3, "waxman", static_cast<std::uint64_t>(dims));
    const auto o = WaxmanOptions().nodes(250).dims(dims).alpha(0.15).beta(0.5);
    const auto g = waxman(o, rng);
    require_simple(g);
    double longest = 0;
    for (std::size_t u = 0; u < g.nodes(); ++u)
      for (std::size_t v = u + 1; v < g.nodes(); ++v) longest = std::max(longest, distance(g, u, v));
    std::vector<double> p;
    double near[2] = {0, 0}, far[2] = {0, 0};  // {pairs, edges} closer / farther than alpha L
    for (std::size_t u = 0; u < g.nodes(); ++u)
      for (std::size_t v = u + 1; v < g.nodes(); ++v) {
        const double d = distance(g, u, v);
        p.push_back(o.beta() * std::exp(-d / (o.alpha() * longest)));
        double* bin = d < o.alpha() * longest ? near : far;
        bin[0] += 1, bin[1] += g.has_edge(u, v);
      }
    require_within_sampling_error(static_cast<double>(g.edges()), p);
    REQUIRE(near[1] / near[0] > 3 * far[1] / far[0]);  // edges are short
  }
}

TEST_CASE("watts-strogatz: n k / 2 edges always - degree k without rewiring - rewired share near p",
          "[network][topology]") {
  const std::size_t n = 400, k = 6;
  auto rng = Rng::stream(5, "ws", 0);
  const auto ring = watts_strogatz(WattsStrogatzOptions().nodes(n).k(k).p(0.0), rng);
  require_simple(ring);
  REQUIRE(ring.edges() == n * k / 2);
  for (auto d : degrees(ring)) REQUIRE(d == k);
  REQUIRE(ring.periodic);
  REQUIRE(ring.dims() == 1);

  const double p = 0.2;
  const auto g = watts_strogatz(WattsStrogatzOptions().nodes(n).k(k).p(p), rng);
  require_simple(g);
  REQUIRE(g.edges() == n * k / 2);
  double moved = 0;
  for (const auto& [u, v] : edge_list(g)) {
    const std::size_t gap = std::min(v - u, n - (v - u));
    moved += gap > k / 2;
  }
  // Each edge is moved with probability p; a moved edge lands on a ring slot again with probability ~k/n.
  require_within_sampling_error(moved, std::vector<double>(n * k / 2, p * (1 - double(k) / n)));
  REQUIRE_THROWS_WITH(watts_strogatz(WattsStrogatzOptions().nodes(10).k(3), rng), Catch::Contains("even"));
  REQUIRE_THROWS_WITH(make_topology("watts_strogatz", GraphOptions().nodes(10).dims(2), {}, rng),
                      Catch::Contains("dims must be 1"));
}

TEST_CASE("erdos-renyi is G(n - p): binomial edge count - no duplicates", "[network][topology]") {
  for (double p : {0.01, 0.05, 0.3}) {
    auto rng = Rng::stream(11, "er", static_cast<std::uint64_t>(p * 100));
    const std::size_t n = 300;
    const auto g = erdos_renyi(ErdosRenyiOptions().nodes(n).p(p), rng);
    require_simple(g);
    require_within_sampling_error(static_cast<double>(g.edges()), std::vector<double>(n * (n - 1) / 2, p));
  }
  auto rng = Rng(1);
  const auto empty = erdos_renyi(ErdosRenyiOptions().nodes(5).p(0), rng);
  const auto hops = hop_matrix(empty);
  for (std::size_t u = 0; u < 5; ++u)
    for (std::size_t v = 0; v < 5; ++v) REQUIRE(hops[u * 5 + v] == (u == v ? 0 : -1));
  REQUIRE(connected_components(empty) == 5);
}

TEST_CASE("block model: counts within sampling error - spatial blocks are places", "[network][topology]") {
  for (bool spatial : {true, false}) {
    auto rng = Rng::stream(13, "sbm", spatial);
    const auto o = BlockModelOptions().nodes(300).blocks(5).p_in(0.15).p_out(0.005).spatial(spatial);
    const auto g = block_model(o, rng);
    require_simple(g);
    REQUIRE(g.groups.size() == g.nodes());
    std::vector<double> p;
    double within = 0, between = 0, n_within = 0, n_between = 0;
    for (std::size_t u = 0; u < g.nodes(); ++u)
      for (std::size_t v = u + 1; v < g.nodes(); ++v) {
        const bool same = g.groups[u] == g.groups[v];
        p.push_back(same ? o.p_in() : o.p_out());
        (same ? within : between) += distance(g, u, v);
        (same ? n_within : n_between) += 1;
      }
    require_within_sampling_error(static_cast<double>(g.edges()), p);
    if (spatial) REQUIRE(within / n_within < 0.7 * (between / n_between));
  }
}

TEST_CASE("the registry knows every topology and checks parameters", "[network][topology]") {
  const auto names = topology_names();
  for (const char* n : {"lattice", "geometric", "waxman", "watts_strogatz", "erdos_renyi", "block_model"})
    REQUIRE(std::find(names.begin(), names.end(), n) != names.end());
  Rng rng(2);
  REQUIRE_THROWS_WITH(make_topology("waxman", GraphOptions(), {{"alpah", 0.1}}, rng),
                      Catch::Contains("did you mean 'alpha'"));
  REQUIRE_THROWS_WITH(make_topology("erdos_renyi", GraphOptions(), {{"p", 1.5}}, rng), Catch::Contains("outside"));
  REQUIRE_THROWS_WITH(make_topology("torus", GraphOptions(), {}, rng), Catch::Contains("known: "));
  // Same stream, same graph.
  Rng a = Rng::stream(4, "graph", 0), b = Rng::stream(4, "graph", 0);
  REQUIRE(edge_list(make_topology("waxman", GraphOptions(), {}, a)) ==
          edge_list(make_topology("waxman", GraphOptions(), {}, b)));
}

TEST_CASE("distance matrix is euclidean - periodic axes the short way round", "[network][topology]") {
  Eigen::MatrixXd pos(2, 2);
  pos << 0.05, 0.5, 0.95, 0.5;
  SpatialGraph open(pos), torus(pos, true);
  REQUIRE(distance_matrix(open)[1] == Approx(0.9));
  REQUIRE(distance_matrix(torus)[1] == Approx(0.1));
  REQUIRE_FALSE(add_edge(open, 1, 1));
  REQUIRE(add_edge(open, 0, 1));
  REQUIRE_FALSE(add_edge(open, 1, 0));
  REQUIRE(open.edges() == 1);
}
