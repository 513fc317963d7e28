// Node-steps per second of the paper's rate model (stochastic Heun, dt = tau = 0.1, g = 4, s = 1) on a random
// geometric graph of mean degree about 8, for each node count and thread count asked. Runs draw from their own
// streams, so every thread count must give the same numbers; the digest column shows it.
//
// bench_network [--nodes 100,300] [--runs 16] [--steps 20000] [--threads 1,2] [--degree 8] [--seed 1] [--lanes 8]
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <sstream>
#include <string>
#include <vector>

#include "sim/dynamics/coupling.hpp"
#include "sim/dynamics/integrator.hpp"
#include "sim/dynamics/model.hpp"
#include "sim/dynamics/simulate.hpp"
#include "sim/graph/topologies.hpp"

using namespace loci::sim;

namespace {

std::vector<long> parse_list(const char* text) {
  std::vector<long> out;
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, ',')) out.push_back(std::atol(item.c_str()));
  return out;
}

// CPU time of the whole process (all threads): on a shared machine it is steadier than the wall clock.
double cpu_seconds() {
  timespec t;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
}

std::uint64_t digest(const std::vector<dynamics::Recording>& recordings) {
  std::uint64_t h = 1469598103934665603ull;
  for (const auto& r : recordings)
    for (float v : r.values) {
      std::uint32_t bits;
      std::memcpy(&bits, &v, sizeof bits);
      h = (h ^ bits) * 1099511628211ull;
    }
  return h;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<long> nodes_list = {100, 300}, threads_list = {1, 2};
  long runs = 16, steps = 20000, lanes = 0;  // 0: the library's default
  double degree = 8;
  std::uint64_t seed = 1;
  for (int a = 1; a + 1 < argc; a += 2) {
    if (!std::strcmp(argv[a], "--nodes"))
      nodes_list = parse_list(argv[a + 1]);
    else if (!std::strcmp(argv[a], "--runs"))
      runs = std::atol(argv[a + 1]);
    else if (!std::strcmp(argv[a], "--steps"))
      steps = std::atol(argv[a + 1]);
    else if (!std::strcmp(argv[a], "--threads"))
      threads_list = parse_list(argv[a + 1]);
    else if (!std::strcmp(argv[a], "--degree"))
      degree = std::atof(argv[a + 1]);
    else if (!std::strcmp(argv[a], "--lanes"))
      lanes = std::atol(argv[a + 1]);
    else if (!std::strcmp(argv[a], "--seed"))
      seed = std::strtoull(argv[a + 1], nullptr, 10);
    else {
      std::fprintf(stderr, "unknown option %s\n", argv[a]);
      return 2;
    }
  }
  const auto model = dynamics::make_model("rate");
  const auto heun = dynamics::make_integrator("heun");
  for (long nodes : nodes_list) {
    Rng rng = Rng::stream(seed, "graph", 0);
    const double radius = std::sqrt(degree / (M_PI * static_cast<double>(nodes)));
    const auto g =
        graph::random_geometric(graph::GeometricOptions().nodes(static_cast<std::size_t>(nodes)).radius(radius), rng);
    const auto w = dynamics::Coupling::from_edges(g.nodes(), graph::edge_list(g), dynamics::Normalisation::in_degree);
    std::vector<dynamics::RunId> ids;
    for (long r = 0; r < runs; ++r) ids.push_back({"bench", static_cast<std::uint64_t>(r)});
    for (long threads : threads_list) {
      // Every step is integrated and every 10th recorded, as a dataset with subsample 10 would be.
      auto options = dynamics::SimulationOptions()
                         .burn_in(0)
                         .subsample(10)
                         .points(steps / 10 + 1)
                         .threads(static_cast<int>(threads));
      if (lanes > 0) options.lanes(static_cast<std::size_t>(lanes));
      const auto start = std::chrono::steady_clock::now();
      const double cpu_start = cpu_seconds();
      const auto out = dynamics::simulate(*model, *heun, w, seed, ids, options);
      const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      const double cpu = cpu_seconds() - cpu_start;
      const double node_steps = static_cast<double>(nodes) * static_cast<double>(runs) *
                                static_cast<double>(dynamics::steps_per_run(options));
      std::printf(
          "impl=cpp nodes=%ld threads=%ld runs=%ld steps=%lld mean_degree=%.2f seconds=%.3f node_steps_per_s=%.0f "
          "cpu_node_steps_per_s=%.0f digest=%016llx\n",
          nodes, threads, runs, static_cast<long long>(dynamics::steps_per_run(options)),
          2.0 * static_cast<double>(g.edges()) / static_cast<double>(nodes), seconds, node_steps / seconds,
          node_steps / cpu, static_cast<unsigned long long>(digest(out)));
      std::fflush(stdout);
    }
  }
  return 0;
}
