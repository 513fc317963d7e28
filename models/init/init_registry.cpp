#include "models/init/init_registry.hpp"

#include <ATen/CPUGeneratorImpl.h>

#include <map>
#include <stdexcept>

namespace loci::models {
namespace {

// Function-local so that registrations from other translation units never run before the map exists.
struct Registered {
  InitFn fn;
  InitScaleKey scale;
};

std::map<std::string, Registered>& table() {
  static std::map<std::string, Registered> inits;
  return inits;
}

// Each scale field of InitOptions, read by its name.
const std::map<std::string, double (*)(const InitOptions&)>& scale_fields() {
  static const std::map<std::string, double (*)(const InitOptions&)> fields{
      {"std", [](const InitOptions& o) { return o.std(); }},
      {"a", [](const InitOptions& o) { return o.a(); }},
      {"gain", [](const InitOptions& o) { return o.gain(); }},
      {"scale", [](const InitOptions& o) { return o.scale(); }}};
  return fields;
}

std::string joined_names() {
  std::string out;
  for (const auto& entry : table()) out += (out.empty() ? "" : ", ") + entry.first;
  return out;
}

}  // namespace

bool InitRegistry::add(const std::string& name, InitFn fn, const InitScaleKey& scale) {
  if (!scale.empty() && !scale_fields().count(scale))
    throw std::logic_error("initialiser '" + name + "': scale '" + scale + "' is not std, a, gain, scale or empty");
  if (!table().emplace(name, Registered{std::move(fn), scale}).second)
    throw std::logic_error("initialiser '" + name + "' is registered twice");
  return true;
}

namespace {

const Registered& registered(const std::string& name) {
  auto it = table().find(name);
  if (it == table().end())
    throw std::invalid_argument("unknown initialiser '" + name + "'; known: " + joined_names());
  return it->second;
}

}  // namespace

const InitFn& InitRegistry::get(const std::string& name) { return registered(name).fn; }

const InitScaleKey& InitRegistry::scale_key(const std::string& name) { return registered(name).scale; }

double init_scale(const InitOptions& options) {
  const InitScaleKey& key = InitRegistry::scale_key(options.name());
  return key.empty() ? 0.0 : scale_fields().at(key)(options);
}

bool InitRegistry::contains(const std::string& name) { return table().count(name) != 0; }

std::vector<std::string> InitRegistry::names() {
  std::vector<std::string> out;
  for (const auto& entry : table()) out.push_back(entry.first);
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
