#include "sim/dynamics/integrator.hpp"

namespace loci::sim::dynamics {

Integrator::~Integrator() = default;

LOCI_DEFINE_REGISTRY(IntegratorInfo, "integrator")

std::unique_ptr<Integrator> make_integrator(const std::string& name) { return integrator_info(name).make(); }

}  // namespace loci::sim::dynamics
