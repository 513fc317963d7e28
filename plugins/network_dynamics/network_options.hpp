// The network_dynamics config: its schema (built from the topology and model registries, so a new variant brings
// its own keys) and the resolved YAML read once into plain values and a plan of runs per split.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "core/config/node.hpp"
#include "datasets/windows.hpp"
#include "sim/dynamics/coupling.hpp"
#include "sim/dynamics/simulate.hpp"
#include "sim/graph/topology.hpp"

namespace loci::network_dynamics {

// The plugin's schema YAML; built once, on first use.
const char* schema_text();

// Which runs a split's windows come from. Runs of one noise seed are numbered across the splits that share it, in
// the order of `splits`, so two splits never share a run.
struct SplitPlan {
  std::string name;
  datasets::WindowPlan windows;  // samples = windows, recordings = runs
  std::int64_t noise_seed = 0;
  std::int64_t first_run = 0;  // index of its first run in the noise seed's stream
};

// The keys as read, bound once in network_options.cpp's table: the graph's and the simulation's own members (sim's
// options structs, so their defaults are sim's), then what the plugin alone decides.
struct NetworkOptions {
  std::uint64_t seed = 0;
  std::string topology = "geometric";
  std::map<std::string, std::map<std::string, double>> params_by_topology;  // as written, every topology's
  std::map<std::string, double> topology_params;                            // the chosen topology's, checked
  sim::graph::GraphOptions graph;
  std::string model = "rate";
  std::map<std::string, std::map<std::string, double>> params_by_model;  // as written, every model's
  std::map<std::string, double> model_params;                            // the chosen model's, checked
  std::string integrator = "heun";
  sim::dynamics::Normalisation coupling = sim::dynamics::Normalisation::in_degree;
  double delay_steps_per_unit = 0;              // conduction delays, steps per unit of distance; 0 = none
  std::string delay_mark;                       // where the config set it, for errors
  sim::dynamics::SimulationOptions simulation;  // points are set per split
  std::int64_t window = 50;
  std::int64_t stride = 0;  // 0 as written means `window` (no overlap); read_options resolves it
  // As written; read_options plans `splits` from them.
  std::vector<std::pair<std::string, std::int64_t>> split_sizes{{"train", 2000}, {"test", 200}, {"test_noise", 200}};
  std::vector<std::pair<std::string, std::int64_t>> runs{{"train", 8}, {"test", 2}, {"test_noise", 2}};
  std::vector<std::pair<std::string, std::int64_t>> noise_seed{{"test_noise", 1}};
  std::vector<SplitPlan> splits;
};

// Reads and checks the network keys; a problem is a UserError at the offending key's position.
NetworkOptions read_options(const config::Node& resolved);

// The coupling's name as a config writes it (dynamics.coupling).
std::string coupling_name(sim::dynamics::Normalisation coupling);

// The name of a run's noise stream, for sim::dynamics::RunId.
std::string noise_stream(std::int64_t noise_seed);

}  // namespace loci::network_dynamics
