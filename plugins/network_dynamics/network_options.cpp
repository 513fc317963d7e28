#include "network_options.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <sstream>

#include "core/common_options.hpp"
#include "core/config/fail_at.hpp"
#include "core/config/options.hpp"
#include "core/config/schema.hpp"
#include "core/error.hpp"
#include "plugins/api/split_keys.hpp"
#include "sim/dynamics/integrator.hpp"
#include "sim/dynamics/model.hpp"

namespace loci::network_dynamics {

using config::fail_at;

namespace {

// Recorded values kept in memory while a split is written; beyond this a config is surely a mistake.
constexpr double kMaxRecordedBytes = 16.0 * (1ull << 30);

using K = NetworkOptions;
using sim::dynamics::Normalisation;

// The coupling's names, for the typed choice and for the records that name it.
const std::vector<std::pair<std::string, Normalisation>>& couplings() {
  static const std::vector<std::pair<std::string, Normalisation>> names{
      {"in_degree", Normalisation::in_degree}, {"row", Normalisation::row}, {"none", Normalisation::none}};
  return names;
}

// Every key once, bound to the member that holds it; its default is that member's (sim's for the graph and the
// simulation, each variant's ParamSpec for its parameters).
const config::OptionTable<NetworkOptions>& table() {
  namespace graph = sim::graph;
  namespace dyn = sim::dynamics;
  static const config::OptionTable<NetworkOptions> t = [] {
    config::OptionTable<NetworkOptions> t;
    t.add("splits", [](K& k) -> config::Entries<std::int64_t>& { return k.split_sizes; })
        .min(1)
        .doc("split name -> samples (windows); each split's windows come from its own runs (windows.runs)");
    t.add("graph.topology", [](K& k) -> std::string& { return k.topology; })
        .choices(graph::topology_names())
        .doc("how nodes are joined (parameters in graph.<topology>)");
    t.add("graph.nodes", [](K& k) -> std::size_t& { return k.graph.nodes(); })
        .within(2, 5000)
        .doc("nodes (tokens); a lattice needs side^dims (the dataset stores three nodes x nodes matrices)");
    t.add("graph.dims", [](K& k) -> int& { return k.graph.dims(); })
        .within(1, 3)
        .doc("dimensions of the true coordinates (watts_strogatz: 1, a ring)");
    for (const auto& name : graph::topology_names())
      t.add_params("graph." + name, graph::topology(name).params,
                   [name](K& k) -> std::map<std::string, double>& { return k.params_by_topology[name]; });
    t.add("dynamics.model", [](K& k) -> std::string& { return k.model; })
        .choices(dyn::model_names())
        .doc("the network model (parameters in dynamics.<model>)");
    t.add("dynamics.integrator", [](K& k) -> std::string& { return k.integrator; })
        .choices(dyn::integrator_names())
        .doc("stochastic integrator");
    t.add_choice(
         "dynamics.coupling", [](K& k) -> Normalisation& { return k.coupling; }, couplings())
        .doc(
            "W from the adjacency: in_degree = each column divided by its sum (the paper), row = mean of "
            "neighbours, none = 0/1");
    t.add("dynamics.dt", [](K& k) -> double& { return k.simulation.dt(); })
        .min(0)
        .doc("integration step (model time units); must be > 0");
    t.add("dynamics.delay_steps_per_unit", [](K& k) -> double& { return k.delay_steps_per_unit; })
        .min(0)
        .doc(
            "conduction delays: node j reaches node i round(d_ij x this) steps late, d_ij their euclidean distance "
            "(coordinates in [0, 1)); 0 = instantaneous");
    t.add("dynamics.burn_in", [](K& k) -> std::int64_t& { return k.simulation.burn_in(); })
        .min(0)
        .doc("steps integrated and discarded before the first recorded point");
    t.add("dynamics.subsample", [](K& k) -> std::int64_t& { return k.simulation.subsample(); })
        .min(1)
        .doc("steps between recorded points");
    t.add("dynamics.observation_noise", [](K& k) -> double& { return k.simulation.observation_noise(); })
        .min(0)
        .doc("sd of Gaussian noise added to every recorded value");
    for (const auto& name : dyn::model_names())
      t.add_params("dynamics." + name, dyn::model_info(name).params,
                   [name](K& k) -> std::map<std::string, double>& { return k.params_by_model[name]; });
    t.add("windows.length", [](K& k) -> std::int64_t& { return k.window; })
        .min(1)
        .doc("w: recorded points per sample; a token is one node's w values");
    t.add("windows.stride", [](K& k) -> std::int64_t& { return k.stride; })
        .min(0)
        .doc("points between the starts of a run's consecutive windows; 0 = length (no overlap)");
    t.add("windows.runs", [](K& k) -> config::Entries<std::int64_t>& { return k.runs; })
        .min(1)
        .doc("split -> independent runs its windows are cut from; runs are never shared between splits");
    t.add("windows.noise_seed", [](K& k) -> config::Entries<std::int64_t>& { return k.noise_seed; })
        .min(0)
        .doc("split -> seed of its runs' noise streams (default 0); same graph, independent noise");
    return t;
  }();
  return t;
}

// Each value is checked against its spec here, so that a bound the schema cannot state (> 0) is reported at the
// value's own position.
std::map<std::string, double> checked_params(const config::Node& r, const std::string& group,
                                             const std::vector<ParamSpec>& specs,
                                             const std::map<std::string, double>& values) {
  for (const auto& p : specs) {
    try {
      resolve_params({p}, {{p.name, values.at(p.name)}}, "'" + group + "'");
    } catch (const std::invalid_argument& e) {
      fail_at(r.at(group + "." + p.name), e.what());
    }
  }
  return values;
}

}  // namespace

const char* schema_text() {
  static const std::string text = table().schema();
  return text.c_str();
}

std::string coupling_name(sim::dynamics::Normalisation coupling) {
  for (const auto& [name, value] : couplings())
    if (value == coupling) return name;
  return "unknown";
}

std::string noise_stream(std::int64_t noise_seed) { return "noise" + std::to_string(noise_seed); }

NetworkOptions read_options(const config::Node& r) {
  NetworkOptions o;
  table().read(r, o);
  GeneratorCommon common;
  generator_common_options().read(r, common);
  o.seed = static_cast<std::uint64_t>(common.seed);
  o.simulation.threads(common.threads);
  o.topology_params = checked_params(r, "graph." + o.topology, sim::graph::topology(o.topology).params,
                                     o.params_by_topology[o.topology]);
  o.model_params =
      checked_params(r, "dynamics." + o.model, sim::dynamics::model_info(o.model).params, o.params_by_model[o.model]);
  o.delay_mark = r.at("dynamics.delay_steps_per_unit").mark().str();
  if (!(o.simulation.dt() > 0)) fail_at(r.at("dynamics.dt"), "'dynamics.dt' must be > 0");
  if (o.stride == 0) o.stride = o.window;

  const auto& splits = r.at("splits");
  const auto& runs = r.at("windows.runs");
  const auto& seeds = r.at("windows.noise_seed");
  // The default splits' entries stay in these maps when a config trims `splits`.
  const std::vector<std::string> defaults = {"train", "test", "test_noise"};
  plugins::check_split_keys(runs, "windows.runs", splits, defaults);
  plugins::check_split_keys(seeds, "windows.noise_seed", splits, defaults);
  std::map<std::int64_t, std::int64_t> next_run;  // noise seed -> its next unused run index
  double recorded_bytes = 0;
  for (const auto& [name, count] : splits.entries()) {
    SplitPlan p;
    p.name = name;
    p.windows = plugins::split_windows(name, count, runs, "windows.runs", o.window, o.stride,
                                       "how many independent runs its windows are cut from");
    const auto* seed = seeds.find(name);
    p.noise_seed = seed ? seed->as_int() : 0;
    if (runs.find(name)) {
      p.first_run = next_run[p.noise_seed];
      next_run[p.noise_seed] += p.windows.recordings;
    }
    if (p.windows.samples > 0) {
      recorded_bytes += 4.0 * static_cast<double>(p.windows.used()) * static_cast<double>(p.windows.points()) *
                        static_cast<double>(o.graph.nodes());
    }
    o.splits.push_back(p);
  }
  if (recorded_bytes > kMaxRecordedBytes)
    fail_at(splits, "'splits' with windows.length = " + std::to_string(o.window) + " would record " +
                        std::to_string(static_cast<long long>(recorded_bytes / (1 << 20))) +
                        " MiB, over the 16 GiB limit: ask for fewer samples or nodes, a shorter windows.length, or let "
                        "windows overlap (a smaller windows.stride)");
  return o;
}

}  // namespace loci::network_dynamics
