// The torch_trainer config: every key declared once (train_options.cpp) against these structs, whose default
// constructors hold the defaults; the schema text and the reader both follow from that declaration.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/config/fail_at.hpp"
#include "core/config/node.hpp"
#include "core/config/options.hpp"
#include "lr_schedule.hpp"
#include "models/model.hpp"
#include "models/precision_scope.hpp"

namespace loci::torch_trainer {

using Task = models::Task;  // models/choices.hpp

// The trainer's closed choices, typed: each constant is named once, in its key's declaration (train_options.cpp,
// OptionTable::add_choice), which offers the names in the schema and reads them into the constants; choice_name
// gives a name back for a message or a record. train.precision and train.bf16_products are models/'s own constants
// (models/precision_scope.hpp).
enum class Objective { readout, dense, dense_blank };
enum class Optimizer { adamw, sgd };
enum class OnOtherSettings { refuse, new_folder };
enum class Device { cpu, cuda };
std::string choice_name(Objective objective);
std::string choice_name(Schedule schedule);
std::string choice_name(models::Precision precision);

// model.pe.init as given: every key absent (null) unless the config sets it. What is absent comes from the PE's own
// default initialiser (or, when `name` names another one, from that initialiser's defaults).
// The shared keys (models/init/init_keys.hpp) by name, numbers and texts apart.
struct InitKeys {
  std::optional<std::string> name;
  std::map<std::string, std::optional<double>> numbers;
  std::map<std::string, std::optional<std::string>> texts;
  bool given(const std::string& key) const;
  bool any() const;
};

struct TrainOptions {
  std::string data, out;
  std::uint64_t seed = 0;
  std::optional<Task> task;  // task.type; auto (none) is resolved against the dataset by the trainer
  std::string input = "auto", label = "label", target_token = "target_cell";
  Objective objective = Objective::readout;
  std::int64_t classes = 0;
  std::string train_split = "train";
  std::vector<std::string> eval_splits;

  Optimizer optimizer = Optimizer::adamw;
  double lr = 1e-4, weight_decay = 0, momentum = 0.9;
  double adam_eps = 1e-8;      // train.adam_eps
  double label_smoothing = 0;  // train.label_smoothing (classification)
  double data_fraction = 1;    // train.data_fraction: train on the split's first share of samples
  // train.pe.*: the PE's own optimizer settings (its parameters then form a group of their own, optimizer.hpp).
  std::optional<double> pe_weight_decay;  // absent: train.weight_decay
  double pe_lr_scale = 1.0;               // the PE's learning rate = this x the schedule's
  Schedule schedule = Schedule::constant;
  std::int64_t warmup_steps = 0;
  double min_lr = 0, clip_grad_norm = 0;
  std::int64_t epochs = 4000, steps = 0, batch_size = 128, eval_batch_size = 512, eval_every = 200;
  int threads = 0;
  int micro_batches = 2;                  // parts of each batch whose gradients are summed (models/micro_batches.hpp)
  std::int64_t dist_timeout = 600;        // seconds; data-parallel runs only
  std::int64_t dist_eval_timeout = 7200;  // seconds the other ranks wait out rank 0's evaluation
  std::int64_t early_stop_patience = 0;
  std::string early_stop_split = "test";
  double early_stop_min_delta = 0;
  Device device = Device::cpu;
  std::vector<double> eval_mask_ratios{0.5};
  std::vector<double> robustness_noise;  // sds of embedding noise evaluated once training ends (robustness.csv)  //
                                         // masked regression: extra evaluations, rows named <split>@<ratio>
  std::string blas_kernel = "auto";
  OnOtherSettings on_other_settings =
      OnOtherSettings::refuse;  // or new_folder: <out>@<identity hash> (run_identity.hpp)  //
                                // cpu/blas_kernel.hpp; settled by the `loci` process before training
  models::Precision precision = models::Precision::fp32;
  models::Bf16Products bf16_products = models::Bf16Products::autocast;  // how a CPU bf16 step runs its products
  bool save_attention = false, progress = true;
  std::string attention_split;        // "" = human, else test, else the first evaluated split
  std::int64_t checkpoint_every = 0;  // also keep checkpoints/epoch_<E>.pt every this many epochs (0 = off)
  std::string checkpoint_best;        // split whose loss picks checkpoints/best.pt ("" = off)
  std::int64_t jobs = 1;              // sweeps (apps/sweep/sweep.cpp): processes at a time

  // model.pe.draw: "seed" (the PE drawn from the run's seed), "run" (from the run's identity: every cell its own
  // draw) or a whole number (the draw a run of that seed makes); resolved by pe_draw_seed (run_identity.hpp).
  std::string pe_draw = "seed";

  models::ModelOptions model;  // task-dependent sizes (channels, classes) are filled in from the dataset
  InitKeys init;               // composed into model.encoder().pe().init() by read_options
  // Every registered PE's own keys (model.pe.<type>.<key>) as read; the chosen PE's become its PEOptions::params.
  std::map<std::string, std::map<std::string, double>> pe_params;
  // Every registered initialiser's own keys (model.pe.init.<name>.<key>); the run's initialiser gets its own.
  std::map<std::string, std::map<std::string, double>> init_params;

  // Where each key was given: a rule checked after reading (against the dataset, the machine) fails at its key.
  config::KeyMarks marks;
};

// Whether `value` is a valid model.pe.draw: seed, run, or a whole number below 10^19.
bool is_pe_draw(const std::string& value);

// The trainer's schema (YAML text, core/config/schema.hpp), generated from the declaration.
const char* schema_text();

// The trainer's keys declared outside a run's identity (OptionSpec::identity), in declaration order.
std::vector<std::string> keys_outside_identity();

// The declaration of a trainer key (its type, for identity.json), or nullptr for a key the table does not hold.
const config::OptionSpec* option_spec(const std::string& dotted);

// `keys` (a run's flattened settings) without the keys that do not apply to them (OptionSpec::applies).
config::FlatConfig applicable_keys(const config::FlatConfig& keys);

// Reads a resolved, validated config; a rule across keys that fails (model.heads not dividing model.d_model, ...)
// is a UserError naming the key. model.pe.init comes out complete: the PE's default with the given keys on top.
TrainOptions read_options(const config::Node& resolved);

// model.pe.init of `resolved` replaced by the initialiser the run really uses (its name and the keys it reads, or a
// null name for a PE that draws nothing), so that config.yaml says what was done and two runs that did the same
// compare equal.
config::Node with_effective_init(const config::Node& resolved, const TrainOptions& options);

}  // namespace loci::torch_trainer
