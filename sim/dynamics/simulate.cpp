#include "sim/dynamics/simulate.hpp"

#include <omp.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <thread>

#include "sim/dynamics/buffers.hpp"
#include "sim/dynamics/history.hpp"
#include "sim/dynamics/normal.hpp"
#include "sim/dynamics/normal_lanes.hpp"

namespace loci::sim::dynamics {

namespace {

struct Job {
  const Model& model;
  const Integrator& integrator;
  const Coupling& coupling;
  std::uint64_t seed;
  const std::vector<RunId>& runs;
  const SimulationOptions& options;
  std::vector<Recording>& out;
};

constexpr std::size_t kChunk = 16;  // recorded points buffered per node: 64 bytes of float

std::string describe(const RunId& run) { return "run '" + run.stream + "' #" + std::to_string(run.index); }

// Runs [first, first + lanes) advanced together.
void run_batch(const Job& job, std::size_t first, std::size_t lanes) {
  const Model& model = job.model;
  const SimulationOptions& o = job.options;
  const std::size_t nodes = job.coupling.nodes();
  const auto variables = static_cast<std::size_t>(model.variables());
  const std::size_t size = variables * nodes * lanes;
  const std::size_t observed = static_cast<std::size_t>(model.observed()) * nodes;
  const auto points = static_cast<std::size_t>(o.points());

  AlignedVector<double> x(size), z(size), scratch(size), work(job.integrator.workspace(size));
  std::vector<double> start(variables * nodes), measurement(nodes);
  std::vector<Rng> noise, observation;
  for (std::size_t l = 0; l < lanes; ++l) {
    const RunId& run = job.runs[first + l];
    noise.push_back(Rng::stream(job.seed, run.stream, run.index));
    observation.push_back(Rng::stream(job.seed, run.stream + ":observation", run.index));
    model.initial_state(nodes, noise.back(), start.data());
    for (std::size_t k = 0; k < start.size(); ++k) x[k * lanes + l] = start[k];
  }
  NormalLanes draws(noise);  // each run's noise stream continues here, past its initial state
  Batch batch{nodes, lanes, &job.coupling, scratch.data()};
  std::unique_ptr<StateHistory> history;
  if (job.coupling.has_delays()) {
    history = std::make_unique<StateHistory>(job.coupling.max_delay(), size);
    history->reset(x.data());
    batch.history = history.get();
  }
  // Recorded points collect here, kChunk per node and run, and go out a cache line at a time: a node's points lie
  // `points` floats from the next node's, so storing each point in place would touch another line (and often
  // another page) for every node at every recorded step.
  AlignedVector<float> chunk(lanes * nodes * kChunk);

  std::int64_t next_record = o.burn_in();
  std::size_t point = 0;
  for (std::int64_t step = 0;; ++step) {
    if (step == next_record) {
      const std::size_t slot = point % kChunk;
      for (std::size_t l = 0; l < lanes; ++l) {
        if (o.observation_noise() > 0) normal_fill(observation[l], nodes, measurement.data());
        for (std::size_t i = 0; i < nodes; ++i) {
          double v = x[(observed + i) * lanes + l];
          if (!std::isfinite(v))
            throw std::runtime_error(describe(job.runs[first + l]) + " diverged (non-finite state) by step " +
                                     std::to_string(step) + ": lower dt or the coupling");
          if (o.observation_noise() > 0) v += o.observation_noise() * measurement[i];
          chunk[(l * nodes + i) * kChunk + slot] = static_cast<float>(v);
        }
      }
      if (slot + 1 == kChunk || point + 1 == points) {
        for (std::size_t l = 0; l < lanes; ++l) {
          float* dst = job.out[first + l].values.data() + (point - slot);
          const float* src = chunk.data() + l * nodes * kChunk;
          if (slot + 1 == kChunk) {  // a fixed size, so the copy is one vector move instead of a memmove call
            for (std::size_t i = 0; i < nodes; ++i)
              std::memcpy(dst + i * points, src + i * kChunk, sizeof(float) * kChunk);
          } else {
            for (std::size_t i = 0; i < nodes; ++i) std::copy_n(src + i * kChunk, slot + 1, dst + i * points);
          }
        }
      }
      if (++point == points) return;
      next_record += o.subsample();
    }
    draws.fill(variables * nodes, z.data());
    job.integrator.step(model, batch, o.dt(), z.data(), x.data(), work.data());
    if (history) history->push(x.data());
  }
}

}  // namespace

void check(const SimulationOptions& o) {
  if (!(o.dt() > 0) || !std::isfinite(o.dt())) throw std::invalid_argument("dt must be a positive number");
  if (o.burn_in() < 0) throw std::invalid_argument("burn_in must be >= 0");
  if (o.subsample() < 1) throw std::invalid_argument("subsample must be >= 1");
  if (o.points() < 1) throw std::invalid_argument("points must be >= 1");
  if (!(o.observation_noise() >= 0)) throw std::invalid_argument("observation_noise must be >= 0");
  if (o.lanes() < 1) throw std::invalid_argument("lanes must be >= 1");
  if (o.threads() < 0) throw std::invalid_argument("threads must be >= 0");
}

std::int64_t steps_per_run(const SimulationOptions& o) { return o.burn_in() + (o.points() - 1) * o.subsample(); }

std::vector<Recording> simulate(const Model& model, const Integrator& integrator, const Coupling& coupling,
                                std::uint64_t seed, const std::vector<RunId>& runs, const SimulationOptions& options) {
  check(options);
  std::vector<Recording> out(runs.size());
  const std::size_t values = coupling.nodes() * static_cast<std::size_t>(options.points());
  // One block for every run's recording, with room for each to start on a cache line.
  const auto arena = std::make_shared<HugePageArena>(runs.size() * (values * sizeof(float) + 64));
  for (auto& r : out) {
    r.nodes = coupling.nodes();
    r.points = options.points();
    r.values = std::vector<float, ArenaAllocator<float>>(ArenaAllocator<float>(arena));
    r.values.resize(values);  // not zeroed (see ArenaAllocator): every value is written by its run
  }
  const auto threads = static_cast<std::size_t>(options.threads() > 0 ? options.threads() : omp_get_max_threads());
  // Narrower batches when there are few runs, so that every thread gets one; a run's result is the same either way.
  const std::size_t per_thread = (runs.size() + threads - 1) / threads;
  const std::size_t lanes = std::max<std::size_t>(1, std::min(options.lanes(), per_thread));
  const std::size_t batches = (runs.size() + lanes - 1) / lanes;
  const Job job{model, integrator, coupling, seed, runs, options, out};
  // Plain threads rather than an OpenMP team: a generator may call this lazily from inside the dataset driver's
  // own parallel region, where a nested OpenMP region would get a single thread. An exception must not escape a
  // worker; the first batch's message (in batch order) is rethrown.
  std::vector<std::string> errors(batches);
  std::atomic<std::size_t> next{0};
  auto work = [&] {
    for (std::size_t b = next++; b < batches; b = next++) {
      try {
        const std::size_t first = b * lanes;
        run_batch(job, first, std::min(lanes, runs.size() - first));
      } catch (const std::exception& e) {
        errors[b] = e.what();
      }
    }
  };
  std::vector<std::thread> pool;
  const std::size_t helpers = std::min(batches, threads) - (batches > 0 ? 1 : 0);
  for (std::size_t t = 0; t < helpers; ++t) pool.emplace_back(work);
  work();
  for (auto& t : pool) t.join();
  for (const auto& e : errors)
    if (!e.empty()) throw std::runtime_error(e);
  return out;
}

}  // namespace loci::sim::dynamics
