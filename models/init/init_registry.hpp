#pragma once
// Initialisers for positional-encoding tensors (learned PEs, frozen random PEs, relative-attention tables), looked up
// by name so that a new scheme is one registration and the trainer can select it from YAML.

#include <ATen/core/Generator.h>
#include <torch/types.h>

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "core/option.hpp"
#include "core/params.hpp"
#include "core/registry.hpp"
#include "models/choices.hpp"
#include "models/init/init_keys.hpp"

namespace loci::models {

// Keys are shared by every initialiser; each reads only its own, listed in its registration, and only those are part
// of a run's identity.
struct InitOptions {
  InitOptions() = default;
  explicit InitOptions(std::string name) : name_(std::move(name)) {}
  LOCI_OPTION(std::string, name) = "normal";
  // The keys initialisers share, with their defaults (init_keys.hpp): std, a, gain, scale, source, mode, base.
#define LOCI_INIT_FIELD(type, key, value, least, choices, doc) LOCI_OPTION(type, key) = value;
  LOCI_INIT_KEYS(LOCI_INIT_FIELD)
#undef LOCI_INIT_FIELD
  // The initialiser's own keys (model.pe.init.<name>.<key> in a config), declared in its registration: name -> value,
  // flags as 1 / 0.
  using Params = std::map<std::string, double>;
  LOCI_OPTION(Params, params) = {};

 public:  // LOCI_OPTION leaves what follows it private
  // The value of one of the initialiser's own keys; std::invalid_argument naming it when it declared none such.
  double param(const std::string& key) const;
};

// One of the keys initialisers share (init_keys.hpp) as data, so that whoever reads or records them goes through
// the one list: its name, kind, bounds, doc and typed access to InitOptions.
struct InitKey {
  std::string key;
  bool text = false;                 // a choice named by text, else a number
  double least = kNoLeast;           // numbers: the least value allowed
  std::vector<std::string> choices;  // texts: the names allowed
  std::string doc;
  std::function<double(const InitOptions&)> number;  // numbers
  std::function<void(InitOptions&, double)> set_number;
  std::function<std::string(const InitOptions&)> text_value;  // texts, by name
  std::function<void(InitOptions&, const std::string&)> set_text;
};

// Every shared key, in init_keys.hpp's order.
const std::vector<InitKey>& init_keys();

// What an initialiser may need beyond the shape: the tokens' true positions [T, dims] and the caller's generator,
// which every random draw goes through so that a seed fixes the result.
struct InitContext {
  torch::Tensor positions;
  at::Generator generator;
};

using InitFn = std::function<torch::Tensor(at::IntArrayRef shape, const InitOptions&, const InitContext&)>;

// The shared number key (init_keys.hpp) that sets an initialiser's scale (its sigma in the analysis): "std", "a",
// "gain", "scale", or "" for one without a scale (zeros).
using InitScaleKey = std::string;

// A registered initialiser: LOCI_REGISTER(InitInfo, init_info("name", fn, ...)), the last lines of its file.
struct InitInfo {
  std::string name;
  InitFn fn;
  InitScaleKey scale;
  std::vector<std::string> reads;  // every InitOptions key the initialiser reads, its scale first
  std::vector<ParamSpec> keys;     // its own keys beyond InitOptions' fields
};

LOCI_DECLARE_REGISTRY(InitInfo)

// `scale` is checked: one of the shared number keys (init_keys.hpp), or "". `also_reads`: the other InitOptions keys
// the initialiser reads (source, mode, base, ...); a key it does not list is taken not to change its draw, so it is
// left out of a run's identity. `keys`: keys of its own beyond InitOptions' fields, model.pe.init.<name>.<key> in a
// config, read into InitOptions::params (an extension's initialiser declares what it needs here). std::logic_error for
// a scale or a read key InitOptions does not have.
//   init_info("normal", fn)                        scaled by `std`
//   init_info("orthogonal", fn, "gain")            scaled by another field
//   init_info("from_coordinates", fn, "scale", {"mode"})   reading more keys than its scale
//   init_info("signs", fn, "gain", {}, {ParamSpec::real("p", 0.5, "doc")})   with keys of its own
InitInfo init_info(const std::string& name, InitFn fn, const InitScaleKey& scale = "std",
                   const std::vector<std::string>& also_reads = {}, std::vector<ParamSpec> keys = {});

// Lookups in the initialiser registry by name.
class InitRegistry {
 public:
  // The initialiser's own keys; empty for most.
  static const std::vector<ParamSpec>& keys(const std::string& name);
  static const InitFn& get(const std::string& name);
  static const InitScaleKey& scale_key(const std::string& name);
  // Every InitOptions key the initialiser reads besides its name: its scale key, then `also_reads`.
  static const std::vector<std::string>& reads(const std::string& name);
  static bool contains(const std::string& name);
  static std::vector<std::string> names();
};

// The value of the initialiser's scale field in `options` (0 when it has none).
double init_scale(const InitOptions& options);

// A float32 tensor of `shape` drawn by the initialiser named in `options`.
torch::Tensor make_init(at::IntArrayRef shape, const InitOptions& options, const InitContext& context);

// A CPU generator seeded by the caller: the one source of randomness for model construction.
at::Generator make_generator(uint64_t seed);

}  // namespace loci::models
