#include "models/init/init_registry.hpp"

#include <ATen/CPUGeneratorImpl.h>

#include <algorithm>
#include <map>
#include <set>
#include <stdexcept>

#include "core/registry.hpp"

namespace loci::models {

LOCI_DEFINE_REGISTRY(InitInfo, "initialiser")

namespace {

::loci::Registry<InitInfo>& inits() { return ::loci::Registry<InitInfo>::instance(); }

// Each scale field of InitOptions, read by its name.
const std::map<std::string, double (*)(const InitOptions&)>& scale_fields() {
  static const std::map<std::string, double (*)(const InitOptions&)> fields{
      {"std", [](const InitOptions& o) { return o.std(); }},
      {"a", [](const InitOptions& o) { return o.a(); }},
      {"gain", [](const InitOptions& o) { return o.gain(); }},
      {"scale", [](const InitOptions& o) { return o.scale(); }}};
  return fields;
}

// Every key of InitOptions besides its name.
const std::set<std::string>& option_keys() {
  static const std::set<std::string> keys{"std", "a", "gain", "scale", "source", "mode", "base"};
  return keys;
}

}  // namespace

InitInfo init_info(const std::string& name, InitFn fn, const InitScaleKey& scale,
                   const std::vector<std::string>& also_reads, std::vector<sim::ParamSpec> keys) {
  if (!scale.empty() && !scale_fields().count(scale))
    throw std::logic_error("initialiser '" + name + "': scale '" + scale + "' is not std, a, gain, scale or empty");
  std::vector<std::string> reads;
  if (!scale.empty()) reads.push_back(scale);
  for (const auto& key : also_reads) {
    if (!option_keys().count(key))
      throw std::logic_error("initialiser '" + name + "': reads '" + key + "', which is no key of InitOptions");
    if (std::find(reads.begin(), reads.end(), key) == reads.end()) reads.push_back(key);
  }
  return {name, std::move(fn), scale, std::move(reads), std::move(keys)};
}

double InitOptions::param(const std::string& key) const {
  const auto it = params_.find(key);
  if (it == params_.end())
    throw std::invalid_argument("initialiser '" + name_ + "' has no key '" + key + "' (declare it in its registration)");
  return it->second;
}

namespace {

const InitInfo& registered(const std::string& name) { return inits().at(name); }

}  // namespace

const InitFn& InitRegistry::get(const std::string& name) { return registered(name).fn; }

const InitScaleKey& InitRegistry::scale_key(const std::string& name) { return registered(name).scale; }

const std::vector<std::string>& InitRegistry::reads(const std::string& name) { return registered(name).reads; }

const std::vector<sim::ParamSpec>& InitRegistry::keys(const std::string& name) { return registered(name).keys; }

double init_scale(const InitOptions& options) {
  const InitScaleKey& key = InitRegistry::scale_key(options.name());
  return key.empty() ? 0.0 : scale_fields().at(key)(options);
}

bool InitRegistry::contains(const std::string& name) { return inits().contains(name); }

std::vector<std::string> InitRegistry::names() { return inits().names(); }

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
