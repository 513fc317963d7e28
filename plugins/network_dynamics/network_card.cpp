#include "network_card.hpp"

#include <algorithm>
#include <cstdio>
#include <sstream>

#include "datasets/render.hpp"
#include "sim/dynamics/integrator.hpp"
#include "sim/dynamics/model.hpp"

namespace loci::network_dynamics {

namespace {

std::string params_text(const std::map<std::string, double>& params) {
  std::ostringstream s;
  bool first = true;
  for (const auto& [name, value] : params) {
    s << (first ? "" : ", ") << name << " = " << value;
    first = false;
  }
  return s.str();
}

}  // namespace

std::string card_prose(const NetworkOptions& o, const GraphFacts& facts) {
  namespace dyn = sim::dynamics;
  const auto& model = dyn::model_info(o.model);
  std::ostringstream s;
  s << "Stochastic nonlinear dynamics on a spatial network (Experiment 2 of arXiv 2406.08272): " << o.graph.nodes()
    << " nodes with true coordinates in the unit cube [0, 1)^" << o.graph.dims() << ", joined by a `" << o.topology
    << "` graph (" << sim::graph::topology(o.topology).doc << "; " << params_text(o.topology_params) << "). The graph "
    << "is simple (no self-loops, no parallel edges) and has " << facts.edges << " edges (mean degree "
    << facts.mean_degree << ", " << facts.components << " connected component" << (facts.components == 1 ? "" : "s")
    << "). It is drawn once from the seed; every split uses the same graph.\n\n";
  s << "Dynamics: the `" << o.model << "` model (" << model.doc << "; " << params_text(o.model_params)
    << "), coupling W = the adjacency normalised by `" << coupling_name(o.coupling) << "`, integrated by `"
    << o.integrator << "` with dt = " << o.simulation.dt()
    << (o.delay_steps_per_unit > 0 ? ", with conduction delays of round(distance x " : "");
  if (o.delay_steps_per_unit > 0) s << o.delay_steps_per_unit << ") steps along each edge";
  s << ". A run starts from a random state, is integrated for " << o.simulation.burn_in()
    << " burn-in steps, then recorded every " << o.simulation.subsample() << " step(s) (recorded time step "
    << o.simulation.dt() * static_cast<double>(o.simulation.subsample()) << ")"
    << (o.simulation.observation_noise() > 0
            ? ", with Gaussian observation noise of sd " + std::to_string(o.simulation.observation_noise())
            : std::string())
    << ".\n\n";
  s << "A sample is a window of w = " << o.window
    << " consecutive recorded points of one run: `activity` (token x time, "
    << "float32) holds one token per node, its w values; `run` is the run's index in its noise stream and `start` the "
    << "window's first recorded point in that run. Sample i of a split comes from the split's run i mod R (R runs), "
    << "window i div R, which starts at point (i div R) * " << o.stride
    << (o.stride >= o.window ? " (windows of a run do not overlap)" : " (windows of a run overlap)") << ".\n\n";
  s << "Splits never share a run, so train and test windows never overlap. Runs draw their initial state and noise "
       "from streams named by (seed, noise seed, run index); splits with the same noise seed take consecutive run "
       "indices in the order of `splits`:\n\n";
  for (const auto& p : o.splits) {
    const auto& w = p.windows;
    if (w.samples == 0) continue;
    s << "- `" << p.name << "`: " << w.samples << " windows from " << w.used() << " run(s) (indices " << p.first_run
      << ".." << p.first_run + w.used() - 1 << " of noise seed " << p.noise_seed << "), " << w.points()
      << " recorded points each\n";
  }
  s << "\nA split with its own noise seed (by default `test_noise`) is the same graph driven by noise that no other "
       "split's runs drew from.\n\n";
  s << "Dataset arrays: `/positions` (token x axis) the true coordinates (for a ring, the periodic arc position i / "
       "nodes); `/adjacency` (token x peer, uint8, symmetric); `/distance` (euclidean between coordinates, the short "
       "way round on periodic axes, float32); `/hops` (shortest-path hop counts, int32, -1 where unreachable)"
    << (o.topology == "block_model" ? "; `/block` each node's block" : "")
    << ". Model, topology and run parameters are root attributes (`model.*`, `topology.*`, `runs.<split>`, ...).\n\n"
       "Task: masked-node regression. Mask a share of the tokens (50% in training, up to 90% at test), predict their "
       "values from the others, score MSE on masked tokens; compare the learned positional encoding with "
       "`/positions`, `/distance` and `/hops`.";
  return s.str();
}

std::string render_window(const NetworkOptions& o, const sim::graph::SpatialGraph& g,
                          const datasets::SampleSlots& sample, std::size_t max_nodes) {
  const float* activity = sample.get<float>("activity");
  const std::int64_t run = *sample.get<std::int64_t>("run");
  const std::int64_t start = *sample.get<std::int64_t>("start");
  const auto w = static_cast<std::size_t>(o.window);
  const auto [lo, hi] = std::minmax_element(activity, activity + g.nodes() * w);
  std::ostringstream s;
  s << "run " << run << ", points " << start << ".." << start + o.window - 1 << ", values " << *lo << " .. " << *hi
    << " (shaded low to high)\n";
  return s.str() + datasets::shade_strips(
                       activity, g.nodes(), w,
                       [&](std::size_t i) {
                         char label[64];
                         int n = std::snprintf(label, sizeof label, "node %3zu (", i);
                         for (int a = 0; a < g.dims(); ++a)
                           n += std::snprintf(label + n, sizeof label - static_cast<std::size_t>(n), "%s%.2f",
                                              a ? ", " : "", g.positions(static_cast<Eigen::Index>(i), a));
                         return std::string(label) + ")";
                       },
                       max_nodes);
}

}  // namespace loci::network_dynamics
