// The network_dynamics config: its schema (built from the topology and model registries, so a new variant brings
// its own keys) and the resolved YAML read once into plain values and a plan of runs per split.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "datasets/windows.hpp"
#include "plugins/api/config/node.hpp"
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
  data::WindowPlan windows;  // samples = windows, recordings = runs
  std::int64_t noise_seed = 0;
  std::int64_t first_run = 0;  // index of its first run in the noise seed's stream
};

struct NetworkOptions {
  std::uint64_t seed = 0;
  std::string topology;
  std::map<std::string, double> topology_params;  // every parameter of the chosen topology
  sim::graph::GraphOptions graph;
  std::string model;
  std::map<std::string, double> model_params;
  std::string integrator;
  std::string coupling_name;
  sim::dynamics::Normalisation coupling = sim::dynamics::Normalisation::in_degree;
  double delay_steps_per_unit = 0;  // conduction delays, steps per unit of distance; 0 = none
  std::string delay_mark;           // where the config set it, for errors
  sim::dynamics::SimulationOptions simulation;  // points are set per split
  std::int64_t window = 50;
  std::int64_t stride = 50;
  std::vector<SplitPlan> splits;
};

// Reads and checks the network keys; a problem is a UserError at the offending key's position.
NetworkOptions read_options(const config::Node& resolved);

// The name of a run's noise stream, for sim::dynamics::RunId.
std::string noise_stream(std::int64_t noise_seed);

}  // namespace loci::network_dynamics
