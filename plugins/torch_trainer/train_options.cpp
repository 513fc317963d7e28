// Every key of the torch_trainer, declared once: path, the member that holds it (whose default-constructed value is
// the default), range or choices, doc. The paper's Experiment 1 is the default everywhere.
#include "train_options.hpp"

#include <algorithm>
#include <functional>
#include <map>

#include "core/common_options.hpp"
#include "core/config/options.hpp"
#include "models/choices.hpp"
#include "models/init/init_registry.hpp"
#include "models/pe/positional_encoding.hpp"

namespace loci::torch_trainer {

bool is_pe_draw(const std::string& v) {
  if (v == "seed" || v == "run") return true;
  return !v.empty() && v.size() <= 19 && std::all_of(v.begin(), v.end(), [](char c) { return c >= '0' && c <= '9'; });
}

namespace {

using Table = config::OptionTable<TrainOptions>;
using O = TrainOptions;

// Each closed choice's names, once: the schema offers them, the reader maps them to the constants.
const Choices<std::optional<Task>> kTaskTypes = [] {
  Choices<std::optional<Task>> c{{"auto", std::nullopt}};
  for (const auto& [name, task] : models::tasks()) c.emplace_back(name, task);
  return c;
}();
const Choices<Objective> kObjectives{
    {"readout", Objective::readout}, {"dense", Objective::dense}, {"dense_blank", Objective::dense_blank}};
const Choices<Optimizer> kOptimizers{{"adamw", Optimizer::adamw}, {"sgd", Optimizer::sgd}};
const Choices<Schedule> kSchedules{{"constant", Schedule::constant}, {"warmup_cosine", Schedule::warmup_cosine}};
const Choices<Device> kDevices{{"cpu", Device::cpu}, {"cuda", Device::cuda}};
const Choices<models::Precision> kPrecisions{{"fp32", models::Precision::fp32}, {"bf16", models::Precision::bf16}};
const Choices<models::Bf16Products> kBf16Products{{"autocast", models::Bf16Products::autocast},
                                                  {"fused", models::Bf16Products::fused}};
const Choices<OnOtherSettings> kOnOtherSettings{{"refuse", OnOtherSettings::refuse},
                                                {"new_folder", OnOtherSettings::new_folder}};

void declare_task(Table& t) {
  t.add_choice(
       "task.type", [](O& o) -> std::optional<Task>& { return o.task; }, kTaskTypes)
      .doc("auto: classification when the dataset has `label`, masked-token regression otherwise");
  t.add("task.input", [](O& o) -> std::string& {
     return o.input;
   }).doc("per-sample array of token features [token, channel]; auto: tokens, else activity");
  t.add("task.label", [](O& o) -> std::string& {
     return o.label;
   }).doc("per-sample class label array (classification)");
  t.add("task.target_token", [](O& o) -> std::string& {
     return o.target_token;
   }).doc("per-sample array giving the target token (pooling: target)");
  t.add_choice(
       "task.objective", [](O& o) -> Objective& { return o.objective; }, kObjectives)
      .doc(
          "what classification supervises: readout = one label per sample read from one token (the paper: the "
          "last); dense = every token's own class from the per-sample array `solution` [token] (the LST: every "
          "cell's symbol), each read from its own token; dense_blank = only the tokens whose symbol channels are "
          "all zero (the LST's blank cells and its target). Accuracy stays the target cell's (task.target_token), "
          "read from its own token under dense objectives");
  t.add("task.classes", [](O& o) -> std::int64_t& { return o.classes; })
      .min(0)
      .doc("number of classes; 0 = from the dataset (N of the LST grid, or max label + 1)");
  t.add("task.train_split", [](O& o) -> std::string& { return o.train_split; }).doc("split to train on");
  t.add("task.eval_splits", [](O& o) -> std::vector<std::string>& {
     return o.eval_splits;
   }).doc("splits to evaluate; [] = every split");
}

void declare_model(Table& t) {
  t.add("model.d_model", [](O& o) -> std::int64_t& { return o.model.encoder().d_model(); }).min(1).doc("model width");
  t.add("model.blocks", [](O& o) -> std::int64_t& { return o.model.encoder().blocks(); }).min(1).doc("encoder blocks");
  t.add("model.heads", [](O& o) -> std::int64_t& { return o.model.encoder().heads(); })
      .min(1)
      .doc("attention heads; must divide model.d_model");
  t.add("model.mlp_ratio", [](O& o) -> double& { return o.model.encoder().mlp_ratio(); })
      .min(0.01)
      .doc("MLP hidden width / d_model");
  t.add_choice(
       "model.activation", [](O& o) -> models::Activation& { return o.model.encoder().activation(); },
       models::activations())
      .doc("MLP activation");
  t.add("model.activation_after_both", [](O& o) -> bool& {
     return o.model.encoder().activation_after_both();
   }).doc("activation after both MLP linears (the paper) or only the first");
  t.add_choice(
       "model.norm", [](O& o) -> models::NormPlacement& { return o.model.encoder().norm(); }, models::norm_placements())
      .doc("LayerNorm placement (the paper: post)");
  t.add("model.final_norm", [](O& o) -> bool& {
     return o.model.encoder().final_norm();
   }).doc("a LayerNorm after the last block");
  t.add("model.dropout", [](O& o) -> double& { return o.model.encoder().dropout(); })
      .within(0, 1)
      .doc("dropout in attention and MLP");
  t.add_choice(
       "model.pooling", [](O& o) -> models::Pooling& { return o.model.classification().pooling(); }, models::poolings())
      .doc("classification readout: last token (the paper), the target token, the mean, or a CLS token")
      .applies_when("task.objective", {"readout"});
  t.add("model.mask_ratio_train", [](O& o) -> double& { return o.model.masked_regression().mask_ratio_train(); })
      .within(0, 1)
      .doc("masked regression: share of tokens masked in training");
  t.add("model.mask_ratio_eval", [](O& o) -> double& { return o.model.masked_regression().mask_ratio_eval(); })
      .within(0, 1)
      .doc("masked regression: share masked at evaluation");
  t.check(
      "model.heads", [](const O& o) { return o.model.encoder().d_model() % o.model.encoder().heads() == 0; },
      [](const O& o) {
        return "must divide model.d_model (" + std::to_string(o.model.encoder().heads()) + " heads, d_model " +
               std::to_string(o.model.encoder().d_model()) + ")";
      });
}

void declare_pe(Table& t) {
  auto pe = [](O& o) -> models::PEOptions& { return o.model.encoder().pe(); };
  t.add("model.pe.type", [pe](O& o) -> std::string& { return pe(o).type(); })
      .choices(models::PERegistry::names())
      .doc("positional encoding (models/pe/, one file each)");
  t.add_choice(
       "model.pe.placement", [pe](O& o) -> models::PePlacement& { return pe(o).placement(); }, models::pe_placements())
      .doc(
          "per_block: each block adds its own PE (the paper); shared: one PE added at every block; input_only: one "
          "PE at the first block only");
  t.add("model.pe.base", [pe](O& o) -> double& { return pe(o).base(); }).min(1).doc("sinusoid / rotary base");
  t.add("model.pe.coordinate_scale", [pe](O& o) -> double& { return pe(o).coordinate_scale(); })
      .min(0)
      .doc("scale applied to true coordinates before sinusoids (sinusoidal_nd, rope_axial, alibi on coordinates)");
  t.add("model.pe.sinusoidal_dropout", [pe](O& o) -> double& { return pe(o).sinusoidal_dropout(); })
      .within(0, 1)
      .doc("dropout on fixed sinusoidal PEs (the authors' code: 0.1)");
  t.add("model.pe.dropout_at_eval", [pe](O& o) -> bool& {
     return pe(o).dropout_at_eval();
   }).doc("keep that dropout on at evaluation (the authors' code: true)");
  t.add_choice(
       "model.pe.variant", [pe](O& o) -> models::RelativeVariant& { return pe(o).variant(); },
       models::relative_variants())
      .doc(
          "relative PE: learned attention bias, or the authors' Music-Transformer relative attention with a causal "
          "mask");
  t.add_choice(
       "model.pe.offsets", [pe](O& o) -> models::PeOffsets& { return pe(o).offsets(); }, models::pe_offsets())
      .doc(
          "relative and alibi PEs: offsets of the token index, or of the true coordinates (grid offset vectors for "
          "relative bias, euclidean distance for alibi)");
  t.add("model.pe.max_distance", [pe](O& o) -> std::int64_t& { return pe(o).max_distance(); })
      .min(0)
      .doc("relative PE: clip offsets (0 = no clipping)");
  t.add("model.pe.draw", [](O& o) -> std::string& { return o.pe_draw; })
      .doc(
          "where a drawn PE's random tables come from: seed (the run's seed, so the cells of a sweep that share a "
          "seed share one draw, rescaled by sigma: paired), run (the run's settings and seed: every cell draws its "
          "own, independent), or a whole number N (the draw a run of seed N makes: shared on purpose)");
  t.check(
      "model.pe.draw", [](const O& o) { return is_pe_draw(o.pe_draw); },
      [](const O& o) { return "must be seed, run or a whole number, not '" + o.pe_draw + "'"; });
  // Each PE's own keys, declared with its registration (an extension's PE too): model.pe.<type>.<key>. They apply
  // only to runs of that PE, so they enter only those runs' identity, and are refused on any other (read_options).
  for (const auto& name : models::PERegistry::names())
    t.add_params(
        "model.pe." + name, models::PERegistry::keys(name),
        [name](O& o) -> std::map<std::string, double>& { return o.pe_params[name]; },
        [name](const config::FlatConfig& keys) { return config::flat_value(keys, "model.pe.type") == name; });
}

// An init key applies when the run's initialiser reads it (its registration lists what it reads); with no
// initialiser (a fixed PE) none does. An initialiser this process does not know keeps every key.
std::function<bool(const config::FlatConfig&)> read_by_init(const std::string& key) {
  return [key](const config::FlatConfig& keys) {
    const std::string name = config::flat_value(keys, "model.pe.init.name");
    if (name == "null" || name.empty()) return false;
    if (!models::InitRegistry::contains(name)) return true;
    const auto& reads = models::InitRegistry::reads(name);
    return std::find(reads.begin(), reads.end(), key) != reads.end();
  };
}

void declare_init(Table& t) {
  const std::string absent =
      " (absent: the PE's own default initialiser, e.g. learned normal(0.2), random_fixed "
      "normal(1.0), relative bias zeros, relative music_causal normal(1.0))";
  t.add("model.pe.init.name", [](O& o) -> std::optional<std::string>& { return o.init.name; })
      .choices(models::InitRegistry::names())
      .doc("initialisation of learned and random PE tables (models/init/)" + absent);
  // The keys initialisers share, from their one declaration (models/init/init_keys.hpp); each applies to the runs
  // whose initialiser reads it.
  for (const auto& k : models::init_keys()) {
    const std::string key = k.key, path = "model.pe.init." + k.key;
    if (k.text) {
      auto d = t.add(path, [key](O& o) -> std::optional<std::string>& { return o.init.texts[key]; });
      if (!k.choices.empty()) d.choices(k.choices);
      d.doc(k.doc).applies_if(read_by_init(key));
    } else {
      auto d = t.add(path, [key](O& o) -> std::optional<double>& { return o.init.numbers[key]; });
      if (k.least != models::kNoLeast) d.min(k.least);
      d.doc(k.doc).applies_if(read_by_init(key));
    }
  }
  // Each initialiser's own keys, declared with its registration (an extension's too): model.pe.init.<name>.<key>,
  // applying only to runs drawn by that initialiser.
  for (const auto& name : models::InitRegistry::names())
    t.add_params(
        "model.pe.init." + name, models::InitRegistry::keys(name),
        [name](O& o) -> std::map<std::string, double>& { return o.init_params[name]; },
        [name](const config::FlatConfig& keys) { return config::flat_value(keys, "model.pe.init.name") == name; });
}

bool early_stopping(const config::FlatConfig& keys) {
  const std::string patience = config::flat_value(keys, "train.early_stop_patience");
  return !patience.empty() && patience != "0";
}

void declare_optimizer(Table& t) {
  t.add_choice(
       "train.optimizer", [](O& o) -> Optimizer& { return o.optimizer; }, kOptimizers)
      .doc("optimizer");
  t.add("train.lr", [](O& o) -> double& { return o.lr; }).min(0).doc("learning rate");
  t.add("train.weight_decay", [](O& o) -> double& { return o.weight_decay; }).min(0).doc("weight decay");
  t.add("train.pe.weight_decay", [](O& o) -> std::optional<double>& { return o.pe_weight_decay; })
      .min(0)
      .doc(
          "weight decay of the PE's own parameters alone (absent: train.weight_decay, as every other parameter); "
          "0 exempts the PE from decay (as timm exempts pos_embed), a value with train.weight_decay 0 decays the PE "
          "alone; no effect on a PE without parameters (the fixed ones)");
  t.add("train.pe.lr_scale", [](O& o) -> double& { return o.pe_lr_scale; })
      .min(0)
      .doc(
          "the PE's learning rate as a multiple of train.lr (and of its schedule); 0 freezes the PE at its init; no "
          "effect on a PE without parameters");
  t.add("train.adam_eps", [](O& o) -> double& { return o.adam_eps; })
      .min(1e-30)
      .doc(
          "AdamW's epsilon, added to the root of the second moment: larger values shrink the steps of parameters "
          "whose gradients have become small (a way to keep them moving after the task is fitted)")
      .applies_when("train.optimizer", {"adamw"});
  t.add("train.label_smoothing", [](O& o) -> double& { return o.label_smoothing; })
      .within(0, 1)
      .doc(
          "classification targets smoothed towards uniform by this share, so the loss never reaches zero and the "
          "gradient does not vanish once every training sample is right");
  t.add("train.data_fraction", [](O& o) -> double& { return o.data_fraction; })
      .within(1e-9, 1)
      .doc(
          "train on this share of the training split: its first samples in stored order (at least one), the same "
          "ones every epoch; the train split's evaluation scores the same share");
  t.add("train.momentum", [](O& o) -> double& { return o.momentum; })
      .min(0)
      .doc("SGD momentum")
      .applies_when("train.optimizer", {"sgd"});
  t.add_choice(
       "train.schedule", [](O& o) -> Schedule& { return o.schedule; }, kSchedules)
      .doc("learning-rate schedule");
  t.add("train.warmup_steps", [](O& o) -> std::int64_t& { return o.warmup_steps; })
      .min(0)
      .doc("warmup steps of warmup_cosine")
      .applies_when("train.schedule", {"warmup_cosine"});
  t.add("train.min_lr", [](O& o) -> double& { return o.min_lr; })
      .min(0)
      .doc("final learning rate of warmup_cosine")
      .applies_when("train.schedule", {"warmup_cosine"});
  t.add("train.clip_grad_norm", [](O& o) -> double& { return o.clip_grad_norm; })
      .min(0)
      .doc("clip the gradient norm to this (0 = off)");
}

void declare_length_and_threads(Table& t) {
  t.add("train.epochs", [](O& o) -> std::int64_t& { return o.epochs; })
      .min(1)
      .doc(
          "epochs (the paper: 4000); may grow on a finished run with --resume, which then continues as if asked "
          "for that many from the start")
      .outside_identity();
  t.add("train.steps", [](O& o) -> std::int64_t& { return o.steps; })
      .min(0)
      .doc("stop after this many steps instead (0 = use epochs); may grow like train.epochs");
  t.add("train.batch_size", [](O& o) -> std::int64_t& { return o.batch_size; }).min(1).doc("batch size");
  t.add("train.threads", [](O& o) -> int& { return o.threads; })
      .min(0)
      .max(4096)
      .doc(
          "threads (training: one per micro-batch; evaluation: all); 0 = all cores, and more than the cores are "
          "used as the cores. The results do not depend on it")
      .outside_identity();
  t.add("train.micro_batches", [](O& o) -> int& { return o.micro_batches; })
      .min(1)
      .doc(
          "each batch's gradient as the sum of this many equal parts' gradients, the parts computed side by side, "
          "one thread each (training uses min(micro_batches, threads) cores); the results depend on it, never on "
          "threads; at most train.batch_size");
  // More parts than samples leaves parts empty and made an epoch hundreds of times slower, for nothing.
  t.check(
      "train.micro_batches", [](const O& o) { return o.micro_batches <= o.batch_size; },
      [](const O& o) {
        return std::to_string(o.micro_batches) + " parts are more than the " + std::to_string(o.batch_size) +
               " samples of a batch (train.batch_size)";
      });
  t.add("train.dist_timeout", [](O& o) -> std::int64_t& { return o.dist_timeout; })
      .min(1)
      .doc(
          "data-parallel runs (torchrun-style launch): seconds a rank waits for the others before it stops with an "
          "error")
      .outside_identity();
  t.add("train.dist_eval_timeout", [](O& o) -> std::int64_t& { return o.dist_eval_timeout; })
      .min(1)
      .doc(
          "data-parallel runs: seconds the other ranks wait while rank 0 evaluates and saves, apart from "
          "train.dist_timeout so that a long evaluation does not end a healthy run")
      .outside_identity();
}

void declare_evaluation(Table& t) {
  t.add("train.eval_every", [](O& o) -> std::int64_t& { return o.eval_every; })
      .min(1)
      .doc("evaluate every this many epochs (and at the end)");
  t.add("train.eval_batch_size", [](O& o) -> std::int64_t& { return o.eval_batch_size; })
      .min(1)
      .doc("batch size of evaluation");
  t.add("train.early_stop_patience", [](O& o) -> std::int64_t& { return o.early_stop_patience; })
      .min(0)
      .doc("stop after this many evaluations without improvement (0 = off)");
  t.add("train.early_stop_split", [](O& o) -> std::string& { return o.early_stop_split; })
      .doc("split whose loss early stopping watches")
      .applies_if(early_stopping);
  t.add("train.early_stop_min_delta", [](O& o) -> double& { return o.early_stop_min_delta; })
      .min(0)
      .doc("smallest loss decrease that counts as improvement")
      .applies_if(early_stopping);
}

void declare_numerics(Table& t) {
  t.add_choice(
       "train.device", [](O& o) -> Device& { return o.device; }, kDevices)
      .doc("cpu, or cuda when LibTorch was built with CUDA");
  t.add_choice(
       "train.precision", [](O& o) -> models::Precision& { return o.precision; }, kPrecisions)
      .doc(
          "bf16: the training step in bfloat16 as train.bf16_products says (parameters, optimizer and evaluation "
          "stay fp32; not the paper's numerics)");
  t.add_choice(
       "train.bf16_products", [](O& o) -> models::Bf16Products& { return o.bf16_products; }, kBf16Products)
      .doc(
          "with train.precision bf16 on a CPU: autocast (LibTorch's bfloat16 autocast over the forward pass, the "
          "attention's own products in fp32) or fused (the fused layers keep float32 activations and round only "
          "their products' operands to bfloat16, on oneDNN's gemm_bf16bf16f32; needs AVX512_BF16 or AMX)")
      .applies_when("train.precision", {"bf16"});
  t.add("train.eval_mask_ratios", [](O& o) -> std::vector<double>& { return o.eval_mask_ratios; })
      .within(0, 1)
      .doc(
          "masked regression: more shares of tokens to mask at each evaluation besides model.mask_ratio_eval (the "
          "paper tests at 50% and 90%); their metrics rows are named <split>@<ratio>, e.g. test@0.5");
  t.add("train.robustness_noise", [](O& o) -> std::vector<double>& { return o.robustness_noise; })
      .min(0)
      .doc(
          "the paper's robustness test: when training ends, every evaluated split again with Gaussian noise of each "
          "of these sds added to the token embeddings; robustness.csv (split, noise_std, accuracy or mse). [] = off");
}

void declare_run_folder(Table& t) {
  t.add_choice(
       "train.on_other_settings", [](O& o) -> OnOtherSettings& { return o.on_other_settings; }, kOnOtherSettings)
      .doc(
          "when `out` holds a run made with other settings: refuse, naming the keys that differ, or train into "
          "<out>@<first 8 hex of this run's identity hash> instead (resumed there when it exists)")
      .outside_identity();
  t.add("train.blas_kernel", [](O& o) -> std::string& { return o.blas_kernel; })
      .doc(
          "OpenBLAS kernel: auto (loci replaces OpenBLAS's choice when it is a fallback older than the CPU, e.g. "
          "Prescott on an AVX-512 CPU, after checking the new one), openblas (OpenBLAS's own choice), or a kernel "
          "name (SkylakeX, Cooperlake, Haswell, ...); a user's OPENBLAS_CORETYPE always wins. Speed only: results "
          "differ in the last bits between kernels");
  t.add("train.checkpoint.every", [](O& o) -> std::int64_t& { return o.checkpoint_every; })
      .min(0)
      .doc(
          "besides checkpoints/last.pt, keep checkpoints/epoch_<E>.pt at each evaluation whose epoch is a multiple "
          "of this (0 = none); `loci train CONFIG --from FILE` continues from any of them")
      .outside_identity();
  t.add("train.checkpoint.best", [](O& o) -> std::string& { return o.checkpoint_best; })
      .doc(
          "keep checkpoints/best.pt, the model at the evaluation with the lowest loss on this split so far "
          "('' = none)")
      .outside_identity();
  t.add("train.save_attention", [](O& o) -> bool& { return o.save_attention; })
      .doc(
          "write attention.h5: each block's attention maps averaged over the samples of attention_split, at every "
          "evaluation");
  t.add("train.attention_split", [](O& o) -> std::string& { return o.attention_split; })
      .doc(
          "split whose samples the saved attention maps average; '' = human if the dataset has it, else test, else "
          "the first evaluated split");
  t.add("train.progress", [](O& o) -> bool& { return o.progress; })
      .doc("progress bar on a terminal, plain lines in logs")
      .outside_identity();
  t.add("jobs", [](O& o) -> std::int64_t& { return o.jobs; })
      .min(1)
      .doc("sweeps (-m): runs in parallel processes, each with cores/jobs threads")
      .outside_identity();
}

const Table& table() {
  static const Table t = [] {
    Table t;
    declare_task(t);
    declare_model(t);
    declare_pe(t);
    declare_init(t);
    declare_optimizer(t);
    declare_length_and_threads(t);
    declare_evaluation(t);
    declare_numerics(t);
    declare_run_folder(t);
    return t;
  }();
  return t;
}

// The PE's default initialiser (or, when another is named, that one's defaults) with every given key on top.
c10::optional<models::InitOptions> compose_init(const models::PEOptions& pe, const InitKeys& k) {
  models::PEOptions bare = pe;
  bare.init(c10::nullopt);
  c10::optional<models::InitOptions> init = models::PERegistry::effective_init(bare);
  if (!k.any()) return init;
  if (!init || (k.name && *k.name != init->name())) init = models::InitOptions(k.name.value_or("normal"));
  for (const auto& key : models::init_keys()) {
    if (!k.given(key.key)) continue;
    if (key.text)
      key.set_text(*init, *k.texts.at(key.key));
    else
      key.set_number(*init, *k.numbers.at(key.key));
  }
  return init;
}

// A key the initialiser does not read would be dropped without a word (`{name: uniform, std: 0.3}` drew with
// uniform's own a = 0.1): refused at its position, naming the keys it does read.
void refuse_unread_init_keys(const config::Node& r, const InitKeys& k, const c10::optional<models::InitOptions>& init) {
  for (const auto& shared : models::init_keys()) {
    const std::string& key = shared.key;
    if (!k.given(key)) continue;
    const std::string path = "model.pe.init." + key;
    const config::Mark where = r.find_path(path) ? r.find_path(path)->mark() : config::Mark{"config", 0, 0};
    if (!init)
      config::fail_at(where, "'" + path + "': this PE draws no table, so no initialiser reads it; leave it out");
    const auto& reads = models::InitRegistry::reads(init->name());
    if (std::find(reads.begin(), reads.end(), key) != reads.end()) continue;
    std::string takes;
    for (const auto& x : reads) takes += (takes.empty() ? "" : ", ") + std::string("model.pe.init.") + x;
    config::fail_at(where, "'" + path + "' is not read by the " + init->name() + " initialiser" +
                               (takes.empty() ? std::string(", which reads no key") : " (it reads " + takes + ")") +
                               "; set " + (takes.empty() ? std::string("none") : "those") +
                               " instead, or leave it out");
  }
}

// A key of another PE (or initialiser) than the run's would be read and never used: refused where the config gave
// it. (The schema fills every variant's keys with their defaults, which carry no position: only a key someone wrote
// has one.) A value the key's declaration bounds exclusively (ParamSpec::positive) is checked here, where it is read.
// `group` is "model.pe" or "model.pe.init", `what` "PE" or "initialiser", `chosen` the run's ("" for none).
void refuse_other_variant_keys(const config::Node& r, const std::string& group, const char* what,
                               const std::vector<std::string>& names,
                               const std::function<const std::vector<ParamSpec>&(const std::string&)>& keys_of,
                               const std::string& chosen) {
  for (const auto& name : names)
    for (const auto& key : keys_of(name)) {
      const std::string path = group + "." + name + "." + key.name;
      const config::Node* node = r.find_path(path);
      if (!node || node->mark().file.empty()) continue;
      if (name != chosen)
        config::fail_at(*node, "'" + path + "' is a key of the " + name + " " + what + ", and this run's " + what +
                                   " is " + (chosen.empty() ? std::string("none") : chosen) + "; leave it out");
      if (key.min_exclusive && key.kind != ParamSpec::Kind::flag && !(node->as_double() > key.min))
        config::fail_at(*node, "'" + path + "' must be above " + config::default_text(key.min));
    }
}

// The variant's own keys as config.yaml records them (flags as true / false).
config::Node own_keys_node(const std::vector<ParamSpec>& keys, const std::map<std::string, double>& values) {
  config::Node n = config::Node::map();
  for (const auto& key : keys) {
    const auto it = values.find(key.name);
    if (it == values.end()) continue;
    n.set(key.name, config::Node::scalar(key.kind == ParamSpec::Kind::flag ? (it->second != 0 ? "true" : "false")
                                                                           : config::default_text(it->second)));
  }
  return n;
}

}  // namespace

bool InitKeys::given(const std::string& key) const {
  const auto n = numbers.find(key);
  const auto t = texts.find(key);
  return (n != numbers.end() && n->second) || (t != texts.end() && t->second);
}

bool InitKeys::any() const {
  if (name) return true;
  for (const auto& k : models::init_keys())
    if (given(k.key)) return true;
  return false;
}

const config::OptionSpec* option_spec(const std::string& dotted) { return table().spec(dotted); }

std::vector<std::string> keys_outside_identity() {
  std::vector<std::string> out;
  for (const auto& s : table().specs())
    if (!s.identity) out.push_back(s.path);
  return out;
}

config::FlatConfig applicable_keys(const config::FlatConfig& keys) { return table().applicable(keys); }

const char* schema_text() {
  static const std::string text = table().schema();
  return text.c_str();
}

std::string choice_name(Objective objective) { return loci::choice_name(kObjectives, objective); }
std::string choice_name(Schedule schedule) { return loci::choice_name(kSchedules, schedule); }
std::string choice_name(models::Precision precision) { return loci::choice_name(kPrecisions, precision); }

TrainOptions read_options(const config::Node& r) {
  TrainOptions o;
  o.marks = config::KeyMarks(r);
  TrainerCommon common;
  trainer_common_options().read(r, common);
  o.data = common.data;
  o.out = common.out;
  o.seed = static_cast<std::uint64_t>(common.seed);
  table().read(r, o);
  auto& pe = o.model.encoder().pe();
  pe.init(compose_init(pe, o.init));
  refuse_unread_init_keys(r, o.init, pe.init());
  refuse_other_variant_keys(r, "model.pe", "PE", models::PERegistry::names(), models::PERegistry::keys, pe.type());
  pe.params(o.pe_params[pe.type()]);
  refuse_other_variant_keys(r, "model.pe.init", "initialiser", models::InitRegistry::names(),
                            models::InitRegistry::keys, pe.init() ? pe.init()->name() : "");
  if (pe.init()) {
    models::InitOptions init = *pe.init();
    init.params(o.init_params[init.name()]);
    pe.init(init);
  }
  return o;
}

config::Node with_effective_init(const config::Node& resolved, const TrainOptions& o) {
  config::Node out = resolved;
  const auto& init = o.model.encoder().pe().init();
  config::Node n = config::Node::map();
  if (init) {
    // The initialiser's name and the keys it reads: what it really drew from.
    std::map<std::string, std::string> values;
    for (const auto& k : models::init_keys())
      values[k.key] = k.text ? k.text_value(*init) : config::default_text(k.number(*init));
    n.set("name", config::Node::scalar(init->name()));
    for (const auto& key : models::InitRegistry::reads(init->name())) n.set(key, config::Node::scalar(values.at(key)));
    const config::Node own = own_keys_node(models::InitRegistry::keys(init->name()), init->params());
    if (!own.entries().empty()) n.set(init->name(), own);
  } else {
    n.set("name", config::Node());
  }
  out.set_path("model.pe.init", n);
  // Only the run's own PE keeps its group of keys: another PE's (an extension's, say) would make config.yaml
  // unreadable by a loci without that extension, and says nothing of this run.
  if (config::Node* model = out.find("model"))
    if (config::Node* pe = model->find("pe"))
      for (const auto& name : models::PERegistry::names())
        if (name != o.model.encoder().pe().type()) pe->erase(name);
  return out;
}

}  // namespace loci::torch_trainer
