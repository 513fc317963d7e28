#include "sim/dynamics/integrator.hpp"

#include <map>
#include <mutex>
#include <stdexcept>

namespace loci::sim::dynamics {

Integrator::~Integrator() = default;

namespace {

std::map<std::string, IntegratorInfo>& registry() {
  static std::map<std::string, IntegratorInfo> r;
  return r;
}

std::mutex& registry_mutex() {
  static std::mutex m;
  return m;
}

}  // namespace

void register_integrator(IntegratorInfo info) {
  std::lock_guard<std::mutex> lock(registry_mutex());
  const std::string name = info.name;
  if (!registry().emplace(name, std::move(info)).second)
    throw std::logic_error("integrator '" + name + "' registered twice");
}

const IntegratorInfo& integrator_info(const std::string& name) {
  std::lock_guard<std::mutex> lock(registry_mutex());
  const auto it = registry().find(name);
  if (it != registry().end()) return it->second;
  std::string known;
  for (const auto& [n, info] : registry()) known += (known.empty() ? "" : ", ") + n;
  throw std::invalid_argument("unknown integrator '" + name + "' (known: " + known + ")");
}

std::vector<std::string> integrator_names() {
  std::lock_guard<std::mutex> lock(registry_mutex());
  std::vector<std::string> out;
  for (const auto& [name, info] : registry()) out.push_back(name);
  return out;
}

std::unique_ptr<Integrator> make_integrator(const std::string& name) { return integrator_info(name).make(); }

}  // namespace loci::sim::dynamics
