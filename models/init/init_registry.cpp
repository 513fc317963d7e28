#include "models/init/init_registry.hpp"

#include <ATen/CPUGeneratorImpl.h>

#include <map>
#include <stdexcept>

namespace loci::models {
namespace {

// Function-local so that registrations from other translation units never run before the map exists.
std::map<std::string, InitFn>& table() {
  static std::map<std::string, InitFn> inits;
  return inits;
}

std::string joined_names() {
  std::string out;
  for (const auto& [name, fn] : table()) out += (out.empty() ? "" : ", ") + name;
  return out;
}

}  // namespace

bool InitRegistry::add(const std::string& name, InitFn fn) {
  if (!table().emplace(name, std::move(fn)).second)
    throw std::logic_error("initialiser '" + name + "' is registered twice");
  return true;
}

const InitFn& InitRegistry::get(const std::string& name) {
  auto it = table().find(name);
  if (it == table().end())
    throw std::invalid_argument("unknown initialiser '" + name + "'; known: " + joined_names());
  return it->second;
}

bool InitRegistry::contains(const std::string& name) { return table().count(name) != 0; }

std::vector<std::string> InitRegistry::names() {
  std::vector<std::string> out;
  for (const auto& [name, fn] : table()) out.push_back(name);
  return out;
}

torch::Tensor make_init(at::IntArrayRef shape, const InitOptions& options, const InitContext& context) {
  if (!context.generator.defined())
    throw std::invalid_argument("initialiser '" + options.name() + "' needs a generator (make_generator(seed))");
  auto out = InitRegistry::get(options.name())(shape, options, context).to(torch::kFloat32);
  if (out.sizes() != shape)
    throw std::logic_error("initialiser '" + options.name() + "' returned the wrong shape");
  return out.contiguous();
}

at::Generator make_generator(uint64_t seed) { return at::detail::createCPUGenerator(seed); }

}  // namespace loci::models
