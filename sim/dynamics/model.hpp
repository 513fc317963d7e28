// Network dynamics models and their registry. A model is a vector field on the state of every node (one or more
// variables per node) plus a statement of where its noise enters; integrators (integrator.hpp) step it. A model
// is one .cpp file that registers itself with its parameters (see rate_model.cpp).
//
// State layout for a batch of runs ("lanes"): variable-major, then node, then lane innermost:
//   x[(v * nodes + i) * lanes + l]
// so every per-node formula is a loop over contiguous values that vectorises across nodes and runs alike.
#pragma once

#include <cstddef>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "core/params.hpp"
#include "core/registry.hpp"
#include "sim/dynamics/coupling.hpp"
#include "sim/dynamics/history.hpp"
#include "sim/random/stream.hpp"

namespace loci::sim::dynamics {

// What a model's vector field sees besides the state.
struct Batch {
  std::size_t nodes = 0;
  std::size_t lanes = 1;
  const Coupling* coupling = nullptr;
  double* scratch = nullptr;              // size() doubles the model may overwrite, e.g. with W x
  const StateHistory* history = nullptr;  // the accepted states, when the coupling has delays
  std::size_t stage = 0;                  // steps from history->at(0) to the time of the state a drift is evaluated at

  std::size_t block() const { return nodes * lanes; }  // values of one variable
  // y = W x with each entry's delay: x is the block of variable `variable` in the state being evaluated. Models
  // call this rather than coupling->apply so that delays reach every model.
  void couple(const double* x, std::size_t variable, double* y) const;
};

enum class NoiseEntry {
  drift,           // the step's normal draw z enters the vector field f(x, z) itself (e.g. inside a sigmoid)
  additive,        // dx = f(x) dt + g dW with g constant
  multiplicative,  // dx = f(x) dt + g(x) dW
};

class Model {
 public:
  virtual ~Model();
  virtual int variables() const = 0;  // state variables per node
  virtual std::vector<std::string> variable_names() const = 0;
  virtual int observed() const { return 0; }  // the variable a recording keeps
  virtual NoiseEntry noise_entry() const = 0;

  // One run's starting state: variables() * nodes values, variable-major, drawn from `rng`.
  virtual void initial_state(std::size_t nodes, Rng& rng, double* x) const = 0;

  // f(x, z), the deterministic rate of change. z is the step's standard normal draw (one per state value); only
  // NoiseEntry::drift models read it. May use batch.scratch.
  virtual void drift(const Batch& batch, const double* x, const double* z, double* f) const = 0;

  // g(x) in dx = f dt + g dW; never called for NoiseEntry::drift.
  virtual void diffusion(const Batch& batch, const double* x, double* g) const;
};

struct ModelInfo {
  std::string name;
  std::string doc;  // one line: the equations
  std::vector<ParamSpec> params;
  std::function<std::unique_ptr<Model>(const Params&)> make;
};

LOCI_DECLARE_REGISTRY(ModelInfo)
using ModelRegistry = Registry<ModelInfo>;

// std::invalid_argument listing the registered names when `name` is not one of them.
inline const ModelInfo& model_info(const std::string& name) { return ModelRegistry::instance().at(name); }
inline std::vector<std::string> model_names() { return ModelRegistry::instance().names(); }  // sorted

// `name` with its defaults overridden by `params` (std::invalid_argument for an unknown or out-of-range one).
std::unique_ptr<Model> make_model(const std::string& name, const std::map<std::string, double>& params = {});

}  // namespace loci::sim::dynamics
