#pragma once
// One interface for every positional encoding (PE). A PE is a module that holds one set of tensors per *placement*
// (the blocks that own a PE of their own) and acts through hooks the encoder calls at fixed points:
//   add(x, p, prefix)            at a block's input, for PEs that add a [T, d] matrix (sinusoidal*, learned, random);
//   attention_bias(p, q, scale)  added to the scaled attention logits (relative, alibi);
//   rotate(q, k, p)              applied to queries and keys before their product (rope, rope_axial);
//   causal()                     when a token may not attend to later ones (relative, variant music_causal).
// A PE leaves the hooks it does not need at their defaults, which do nothing. Variants register themselves by name
// (one file each under models/pe/), so a new PE is one new file.

#include "core/option.hpp"
#include "core/params.hpp"
#include "core/registry.hpp"
#include "models/choices.hpp"
#include "models/init/init_registry.hpp"

#include <c10/util/Optional.h>
#include <torch/nn/module.h>
#include <torch/nn/pimpl.h>

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace loci::models {

struct PEOptions {
  PEOptions() = default;
  explicit PEOptions(std::string type) : type_(std::move(type)) {}
  // Registry name: none, sinusoidal_1d, sinusoidal_2d, sinusoidal_nd, learned, random_fixed, relative, rope,
  // rope_axial, alibi (PERegistry::names() lists what is linked in).
  LOCI_OPTION(std::string, type) = "learned";
  // per_block: each block adds its own PE at its input (the paper); shared: one PE, added at every block's input;
  // input_only: one PE, at the first block only. For PEs acting in attention the same words choose which blocks'
  // attention they modify and whether those blocks share tables.
  LOCI_OPTION(PePlacement, placement) = PePlacement::per_block;
  // Initialiser of learned and random tables; unset means the PE's own default (PERegistry::default_init):
  // learned normal(0.2), random_fixed normal(1.0), relative bias zeros, relative music_causal normal(1.0).
  LOCI_OPTION(c10::optional<InitOptions>, init) = c10::nullopt;
  // Wavelength base of sinusoidal and rotary PEs.
  LOCI_OPTION(double, base) = 10000.0;
  // Multiplies true coordinates before sinusoidal_nd, rope_axial and coordinate-based alibi use them.
  LOCI_OPTION(double, coordinate_scale) = 1.0;
  // Paper quirk of the fixed sinusoidal PEs: dropout on the block input after the PE is added (0.1 in the paper),
  // which stays active in evaluation when dropout_at_eval is set (as in the paper). Off by default.
  LOCI_OPTION(double, sinusoidal_dropout) = 0.0;
  LOCI_OPTION(bool, dropout_at_eval) = false;
  // relative: bias (a learned logit bias per head and offset) or music_causal (Music-Transformer relative
  // attention, logits q.E_r, with a causal mask: the paper's "relative").
  LOCI_OPTION(RelativeVariant, variant) = RelativeVariant::bias;
  // relative and alibi: index (offsets of the token index) or coordinates (offsets of the true positions: grid
  // offset vectors for relative bias, Euclidean distance for alibi).
  LOCI_OPTION(PeOffsets, offsets) = PeOffsets::index;
  // relative: offsets beyond this are clipped to it (per axis for coordinates); 0 keeps every offset distinct.
  LOCI_OPTION(int64_t, max_distance) = 0;
  // Seed of a generator of the PE's own for its random tables. Unset: the model's generator, drawn first, so that
  // models of one seed share one draw (rescaled by the init's scale). Set, the PE's draw no longer follows the
  // training seed: cells of a sweep can draw independently, or runs of different seeds share a draw on purpose.
  // make_generator(s) here draws the same tables as a model of seed s without it.
  LOCI_OPTION(c10::optional<uint64_t>, draw_seed) = c10::nullopt;
  // The chosen PE's own keys (model.pe.<type>.<key> in a config), declared by its class's keys() and so also by an
  // extension's PE: name -> value, flags as 1 / 0.
  using Params = std::map<std::string, double>;
  LOCI_OPTION(Params, params) = {};

 public:  // LOCI_OPTION leaves what follows it private
  // The value of one of the PE's own keys; std::invalid_argument naming it when the PE did not declare it.
  double param(const std::string& name) const;
};

// What a PE is built for. Positions are the dataset's true coordinates [T, dims]; T = positions.size(0).
struct PEContext {
  int64_t d_model = 0;
  int64_t heads = 1;
  int64_t placements = 1;
  torch::Tensor positions;
  at::Generator generator;
};

class PositionalEncodingImpl : public torch::nn::Module {
 public:
  PositionalEncodingImpl(PEOptions options, PEContext context);
  ~PositionalEncodingImpl() override = default;

  // The initialiser a PE uses when the caller gives none; nullopt for a PE that draws nothing. A PE that draws its
  // tables hides this with its own (the registry records it beside the factory).
  static c10::optional<InitOptions> default_init(const PEOptions&) { return c10::nullopt; }
  // The keys a PE reads beyond PEOptions' own, each model.pe.<type>.<name> in a config with its default, range and
  // doc; read into PEOptions::params. A PE with keys of its own hides this (the registry records them).
  static std::vector<ParamSpec> keys() { return {}; }

  const PEOptions& options() const { return options_; }
  int64_t tokens() const { return tokens_; }
  int64_t d_model() const { return d_model_; }
  int64_t heads() const { return heads_; }
  int64_t placements() const { return placements_; }

  // The [T, d] matrix placement p adds at its block's input; undefined for a PE that adds nothing.
  virtual torch::Tensor matrix(int64_t placement) const;
  // x is [B, prefix + T, d]: the matrix goes onto the last T tokens (prefix tokens such as CLS carry no position),
  // then the sinusoidal dropout quirk if configured. Without a matrix (and dropout) x comes back as is.
  torch::Tensor add(const torch::Tensor& x, int64_t placement, int64_t prefix) const;
  // Whether add() applies dropout now (the sinusoidal dropout quirk, in training or kept at evaluation).
  bool adds_dropout() const { return dropout_ > 0.0 && (is_training() || dropout_at_eval_); }

  // q is [B, H, T, dh] (data tokens only). Returns a tensor broadcastable to [B, H, T, T] that is added to the
  // logits after they are multiplied by `scale` (1/sqrt(dh)), or undefined.
  virtual torch::Tensor attention_bias(int64_t placement, const torch::Tensor& q, double scale) const;
  // q, k are [B, H, T, dh] (data tokens only); rotary PEs replace them by their rotated versions.
  virtual void rotate(torch::Tensor& q, torch::Tensor& k, int64_t placement) const;
  virtual bool causal() const { return false; }
  // Called by the trainer after every optimizer step: a PE that constrains its tables (learned_fixed_norm puts them
  // back on their sphere) does it here. Default: nothing.
  virtual void after_step() {}

  // What pe_matrices() reports for placement p: matrix(p) for additive PEs, the table a relative or alibi PE keeps,
  // or an empty tensor (numel 0) when the PE stores nothing (none, rope, rope_axial).
  virtual torch::Tensor table(int64_t placement) const;
  // Puts `t` ([T, d]) in place of the matrix placement p adds, so that matrix(p) returns it from now on: for the
  // interventions that evaluate a trained model with its PE changed (models/interventions/). std::invalid_argument
  // for a PE that adds no [T, d] matrix (none, rope, relative, alibi), naming it.
  virtual void set_table(int64_t placement, const torch::Tensor& t);

 protected:
  void check_placement(int64_t placement) const;
  // The initialiser this PE uses: the caller's when set, else `fallback` (its default_init).
  InitOptions init_or(const InitOptions& fallback) const { return options_.init().value_or(fallback); }
  InitContext init_context() const { return {positions_, generator_}; }
  const torch::Tensor& positions() const { return positions_; }
  void set_dropout(double p, bool at_eval) {
    dropout_ = p;
    dropout_at_eval_ = at_eval;
  }

 private:
  PEOptions options_;
  int64_t tokens_, d_model_, heads_, placements_;
  torch::Tensor positions_;
  at::Generator generator_;
  double dropout_ = 0.0;
  bool dropout_at_eval_ = false;
};

TORCH_MODULE(PositionalEncoding);

// A PE that is a [T, d] table per placement, learned (parameters) or fixed (buffers). A fixed table identical for
// all placements is stored once.
class TablePEImpl : public PositionalEncodingImpl {
 public:
  using PositionalEncodingImpl::PositionalEncodingImpl;
  torch::Tensor matrix(int64_t placement) const override;
  // A table that served every placement is first copied to each, so that changing one placement changes only it.
  void set_table(int64_t placement, const torch::Tensor& t) override;

 protected:
  // Stored as "pe_<i>" in the order added; one table serves every placement.
  void add_table(torch::Tensor table, bool learned);
  // One [tokens, d_model] table per placement from the init registry (this PE's init, else `fallback`), drawn in
  // placement order from the PE's generator, so that one seed fixes them all.
  std::vector<torch::Tensor> draw_tables(const InitOptions& fallback) const;

 private:
  std::vector<torch::Tensor> tables_;
};

using PEFactory = std::function<std::shared_ptr<PositionalEncodingImpl>(const PEOptions&, const PEContext&)>;
using PEDefaultInit = std::function<c10::optional<InitOptions>(const PEOptions&)>;

// A registered PE: LOCI_REGISTER(PEInfo, pe_info<Impl>("name")), the last line of its file.
struct PEInfo {
  std::string name;
  PEFactory factory;
  PEDefaultInit default_init;
  std::vector<ParamSpec> keys;  // the PE's own keys (its class's keys()); empty for most
};

LOCI_DECLARE_REGISTRY(PEInfo)

// Class `Impl` (constructible from (const PEOptions&, const PEContext&)) under `name`, with its Impl::default_init
// (inherited: draws nothing) and Impl::keys() (inherited: none). A plugin library may register its own PE the same way.
template <class Impl>
PEInfo pe_info(std::string name) {
  return {std::move(name),
          [](const PEOptions& o, const PEContext& c) {
            return std::static_pointer_cast<PositionalEncodingImpl>(std::make_shared<Impl>(o, c));
          },
          [](const PEOptions& o) { return Impl::default_init(o); }, Impl::keys()};
}

// Lookups in the PE registry by name.
class PERegistry {
 public:
  // The PE's own keys (its class's keys()); empty for most.
  static const std::vector<ParamSpec>& keys(const std::string& name);
  // The initialiser `options` would use: its own init when set, else its PE's default (nullopt: the PE draws nothing).
  // std::invalid_argument for an unknown type.
  static c10::optional<InitOptions> effective_init(const PEOptions& options);
  static std::shared_ptr<PositionalEncodingImpl> create(const PEOptions& options, const PEContext& context);
  static bool contains(const std::string& name);
  static std::vector<std::string> names();
};

}  // namespace loci::models
