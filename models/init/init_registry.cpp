#include "models/init/init_registry.hpp"

#include <ATen/CPUGeneratorImpl.h>

#include <algorithm>
#include <map>
#include <stdexcept>
#include <type_traits>

#include "core/registry.hpp"

namespace loci::models {

LOCI_DEFINE_REGISTRY(InitInfo, "initialiser")

namespace {

::loci::Registry<InitInfo>& inits() { return ::loci::Registry<InitInfo>::instance(); }

template <class T>
InitKey init_key(const char* key, double least, const Choices<T>& (*choices)(), const char* doc,
                 const T& (*get)(const InitOptions&), void (*set)(InitOptions&, const T&)) {
  InitKey k;
  k.key = key;
  k.least = least;
  k.doc = doc;
  if constexpr (std::is_enum_v<T>) {
    k.text = true;
    k.choices = loci::choice_names(choices());
    k.text_value = [choices, get](const InitOptions& o) { return loci::choice_name(choices(), get(o)); };
    k.set_text = [choices, set](InitOptions& o, const std::string& v) { set(o, loci::choice_value(choices(), v)); };
  } else {
    k.number = get;
    k.set_number = set;
  }
  return k;
}

const InitKey* shared_key(const std::string& key) {
  for (const auto& k : init_keys())
    if (k.key == key) return &k;
  return nullptr;
}

}  // namespace

const std::vector<InitKey>& init_keys() {
#define LOCI_INIT_KEY(type, key, value, least, choices, doc)                                  \
  init_key<type>(                                                                             \
      #key, least, choices, doc, [](const InitOptions& o) -> const type& { return o.key(); }, \
      [](InitOptions& o, const type& v) { o.key(v); }),
  static const std::vector<InitKey> keys{LOCI_INIT_KEYS(LOCI_INIT_KEY)};
#undef LOCI_INIT_KEY
  return keys;
}

InitInfo init_info(const std::string& name, InitFn fn, const InitScaleKey& scale,
                   const std::vector<std::string>& also_reads, std::vector<ParamSpec> keys) {
  if (!scale.empty() && (!shared_key(scale) || shared_key(scale)->text))
    throw std::logic_error("initialiser '" + name + "': scale '" + scale + "' is no number key of init_keys.hpp");
  std::vector<std::string> reads;
  if (!scale.empty()) reads.push_back(scale);
  for (const auto& key : also_reads) {
    if (!shared_key(key))
      throw std::logic_error("initialiser '" + name + "': reads '" + key + "', which is no key of init_keys.hpp");
    if (std::find(reads.begin(), reads.end(), key) == reads.end()) reads.push_back(key);
  }
  return {name, std::move(fn), scale, std::move(reads), std::move(keys)};
}

double InitOptions::param(const std::string& key) const {
  const auto it = params_.find(key);
  if (it == params_.end())
    throw std::invalid_argument("initialiser '" + name_ + "' has no key '" + key +
                                "' (declare it in its registration)");
  return it->second;
}

namespace {

const InitInfo& registered(const std::string& name) { return inits().at(name); }

}  // namespace

const InitFn& InitRegistry::get(const std::string& name) { return registered(name).fn; }

const InitScaleKey& InitRegistry::scale_key(const std::string& name) { return registered(name).scale; }

const std::vector<std::string>& InitRegistry::reads(const std::string& name) { return registered(name).reads; }

const std::vector<ParamSpec>& InitRegistry::keys(const std::string& name) { return registered(name).keys; }

double init_scale(const InitOptions& options) {
  const InitScaleKey& key = InitRegistry::scale_key(options.name());
  return key.empty() ? 0.0 : shared_key(key)->number(options);
}

bool InitRegistry::contains(const std::string& name) { return inits().contains(name); }

std::vector<std::string> InitRegistry::names() { return inits().names(); }

torch::Tensor make_init(at::IntArrayRef shape, const InitOptions& options, const InitContext& context) {
  if (!context.generator.defined())
    throw std::invalid_argument("initialiser '" + options.name() + "' needs a generator (make_generator(seed))");
  auto out = InitRegistry::get(options.name())(shape, options, context).to(torch::kFloat32);
  if (out.sizes() != shape) throw std::logic_error("initialiser '" + options.name() + "' returned the wrong shape");
  return out.contiguous();
}

at::Generator make_generator(uint64_t seed) { return at::detail::createCPUGenerator(seed); }

}  // namespace loci::models
