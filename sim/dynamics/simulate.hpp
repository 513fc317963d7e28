// Independent runs of a network model, recorded. Each run draws its initial state and noise from its own stream
// (seed, run.stream, run.index) and its observation noise from a second one, so a run's numbers depend on nothing
// else: not on the thread count, nor on which runs share a batch (runs advance together in lanes for speed, and
// every lane does the same arithmetic in the same order as a run alone would).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "core/option.hpp"
#include "sim/dynamics/buffers.hpp"
#include "sim/dynamics/coupling.hpp"
#include "sim/dynamics/integrator.hpp"
#include "sim/dynamics/model.hpp"

namespace loci::sim::dynamics {

class SimulationOptions {
  LOCI_OPTION(double, dt) = 0.1;
  LOCI_OPTION(std::int64_t, burn_in) = 1000;   // steps before the first recorded point
  LOCI_OPTION(std::int64_t, subsample) = 1;    // steps between recorded points
  LOCI_OPTION(std::int64_t, points) = 1000;    // recorded points per run
  LOCI_OPTION(double, observation_noise) = 0;  // sd of Gaussian noise added to each recorded value
  LOCI_OPTION(std::size_t, lanes) = 16;        // runs advanced together (speed only; 16 = two AVX-512 registers)
  LOCI_OPTION(int, threads) = 0;               // 0 = OpenMP's default
};

// Throws std::invalid_argument naming the first bad option.
void check(const SimulationOptions& o);

struct RunId {
  std::string stream = "run";
  std::uint64_t index = 0;
};

// The observed variable of one run: point t of node i at values[i * points + t], as float32. Point t is the state
// after burn_in + t * subsample steps.
struct Recording {
  std::size_t nodes = 0;
  std::int64_t points = 0;
  std::vector<float, ArenaAllocator<float>> values;  // see buffers.hpp for why not a plain vector

  const float* node(std::size_t i) const { return values.data() + i * static_cast<std::size_t>(points); }
};

// Integration steps a run takes (node-steps = this x nodes).
std::int64_t steps_per_run(const SimulationOptions& o);

// One Recording per run, in order. std::runtime_error naming the run if its state stops being finite.
std::vector<Recording> simulate(const Model& model, const Integrator& integrator, const Coupling& coupling,
                                std::uint64_t seed, const std::vector<RunId>& runs, const SimulationOptions& options);

}  // namespace loci::sim::dynamics
