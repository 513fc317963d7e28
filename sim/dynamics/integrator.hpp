// Stochastic integrators and their registry. One step advances a batch's state by dt with the step's standard
// normal draws z (one per state value): the caller owns the draws, so a test can drive two step sizes with the
// same Brownian path, and the simulation draws them from each run's own stream.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/registry.hpp"
#include "sim/dynamics/model.hpp"

namespace loci::sim::dynamics {

class Integrator {
 public:
  virtual ~Integrator();
  // Doubles of workspace step() needs for a state of `size` values.
  virtual std::size_t workspace(std::size_t size) const = 0;
  // x(t + dt) from x(t). size = model.variables() * batch.block(); `work` holds workspace(size) doubles.
  virtual void step(const Model& model, const Batch& batch, double dt, const double* z, double* x,
                    double* work) const = 0;
};

struct IntegratorInfo {
  std::string name;
  std::string doc;
  std::function<std::unique_ptr<Integrator>()> make;
};

LOCI_DECLARE_REGISTRY(IntegratorInfo)
using IntegratorRegistry = Registry<IntegratorInfo>;

inline const IntegratorInfo& integrator_info(const std::string& name) {  // std::invalid_argument listing known names
  return IntegratorRegistry::instance().at(name);
}
inline std::vector<std::string> integrator_names() { return IntegratorRegistry::instance().names(); }
std::unique_ptr<Integrator> make_integrator(const std::string& name);

}  // namespace loci::sim::dynamics
