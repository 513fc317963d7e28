// torch_trainer: trains the paper's transformer (models/) with any positional encoding on a loci dataset and
// writes a run folder: config.yaml, metrics.csv/.jsonl, pe.h5, checkpoints/last.pt, summary.json. Launched as
// several ranks (torchrun-style), it trains data-parallel: each rank computes its part of every global batch, the
// gradients are averaged across ranks, and rank 0 alone evaluates and writes the run folder.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <iostream>
#include <thread>

#include "core/config/fail_at.hpp"
#include "core/error.hpp"
#include "core/launch.hpp"
#include "core/provenance.hpp"
#include "cpu/blas_kernel.hpp"
#include "datasets/batch_stream.hpp"
#include "export_model.hpp"
#include "interventions.hpp"
#include "memory_check.hpp"
#include "models/allocator.hpp"
#include "models/kernels/bf16_products.hpp"
#include "models/kernels/jit_gemm.hpp"
#include "onednn_state.hpp"
#include "optimizer.hpp"
#include "pause_signal.hpp"
#include "plugins/api/plugin.hpp"
#include "run_folder.hpp"
#include "run_identity.hpp"
#include "training_loop.hpp"

namespace loci::torch_trainer {

namespace {

namespace fs = std::filesystem;

torch::Tensor positions_of(const datasets::Dataset& ds) {
  const auto a = ds.read_dataset_array("positions");
  if (a.spec.shape.size() != 2) throw UserError(ds.path().string() + ": /positions must be [token, axis]");
  std::vector<float> v(static_cast<std::size_t>(a.spec.elements()));
  if (a.spec.dtype == datasets::DType::f32)
    std::memcpy(v.data(), a.bytes.data(), a.bytes.size());
  else if (a.spec.dtype == datasets::DType::f64)
    for (std::size_t i = 0; i < v.size(); ++i)
      v[i] = static_cast<float>(reinterpret_cast<const double*>(a.bytes.data())[i]);
  else
    throw UserError(ds.path().string() + ": /positions must be float32 or float64");
  for (std::size_t i = 0; i < v.size(); ++i)
    if (!std::isfinite(v[i]))
      throw UserError(ds.path().string() + ": /positions holds " + std::to_string(v[i]) + " at token " +
                      std::to_string(i / static_cast<std::size_t>(a.spec.shape[1])) +
                      "; true positions must be finite numbers");
  return torch::from_blob(v.data(), {a.spec.shape[0], a.spec.shape[1]}, torch::kFloat32).clone();
}

// The split whose samples the saved attention maps average: the configured one (an unknown name is an error), else
// the human puzzles, else test, else the first evaluated split. `where` is the key's position in the config.
std::string attention_split_of(const TrainOptions& opt, const datasets::Dataset& ds,
                               const std::vector<std::string>& eval_splits, const std::string& where) {
  const auto splits = ds.splits();
  if (!opt.attention_split.empty()) {
    if (std::find(splits.begin(), splits.end(), opt.attention_split) == splits.end())
      throw UserError(where + ": train.attention_split: the dataset " + ds.path().string() + " has no split '" +
                      opt.attention_split + "'");
    return opt.attention_split;
  }
  for (const char* preferred : {"human", "test"})
    if (std::find(splits.begin(), splits.end(), preferred) != splits.end()) return preferred;
  return eval_splits.front();
}

// One training run as a list of named steps over its Session: the process, the run folder and its data, the model,
// where it starts, then the epochs and what the run ends with.
class TorchTrainer final : public plugins::Trainer {
 public:
  void train(const config::Node& resolved, const plugins::TrainRequest& request) override {
    Session s;
    s.opt = read_options(resolved);
    if (request.dry_run) {
      const std::string plan = describe_plan(resolved, s.opt, request);
      if (plan.rfind(kRefused, 0) == 0 && request.dry_run_refusals) ++*request.dry_run_refusals;
      std::cout << plan << std::endl;
      return;
    }
    set_up_process(s, resolved);
    if (s.lead && request.progress) {
      const cpu::Choice kernel = cpu::current();
      std::cerr << "loci: BLAS kernel " << (kernel.kernel.empty() ? "(not OpenBLAS)" : kernel.kernel) << " ("
                << kernel.why << ")\n";
      if (s.opt.precision == "bf16" && s.device.is_cpu())
        std::cerr << "loci: " << onednn_state(fused_products(s.opt)).why << "\n";
      if (s.device.is_cpu()) std::cerr << "loci: chunk products: " << models::rows::jit_gemm_description() << "\n";
    }
    const PauseSignal pause;  // from here on SIGUSR1 pauses the run instead of ending the process
    claim_run_folder(s);
    open_data(s);
    const ResumePlan resume = check_identity(s, resolved, request);
    s.started_at = utc_now();
    if (!request.from.empty())
      use_checkpoint(s, request.from);
    else if (resume.finished && !resume.extend) {
      std::cerr << "loci: " << s.run.string() << " has finished already (summary.json); nothing to do\n";
      return;
    }
    verify_data(s);
    build_model(s, resolved);
    restore(s, resume, !request.from.empty());
    plan_epochs(s, resolved, request);
    record_initial_pe(s);
    const std::string status = run_epochs(s, request);
    if (s.lead && status != "paused") {
      write_robustness(s);
      write_summary(s, status);
    }
    if (s.lead) write_provenance(s, status);
  }

  // The finished run's model, loaded from its last checkpoint under the run's own settings, evaluated with its PE
  // changed; the run folder is claimed meanwhile, so no training writes it, and only interventions.* are written.
  void intervene(const config::Node& resolved, const plugins::InterveneRequest& request) override {
    Session s;
    const auto claim = load_trained(s, resolved, request.run, request.threads);
    s.means = token_means(*s.ds, s.opt.train_split, s.plan);
    write_interventions(s, request);
  }

  // The finished run's model and a reference batch of its outputs, for PyTorch (export_model.hpp).
  void export_model(const config::Node& resolved, const plugins::ExportRequest& request) override {
    Session s;
    check_export_target(request);
    const auto claim = load_trained(s, resolved, request.run, 0);
    write_export(s, request);
  }

 private:
  // A finished run's model loaded from its last checkpoint under the run's own settings and data (refused when the
  // checkpoint records another run), its evaluated splits known; the run folder stays claimed while the returned
  // lock lives, so no training writes it meanwhile.
  static std::unique_ptr<datasets::FolderLock> load_trained(Session& s, const config::Node& resolved,
                                                            const std::filesystem::path& run, int threads) {
    s.opt = read_options(resolved);
    s.opt.out = run.string();
    if (threads > 0) s.opt.threads = threads;
    s.run = run;
    s.last = s.run / "checkpoints" / "last.pt";
    check_finished_run(s);
    set_up_process(s, resolved);
    auto claim = std::make_unique<datasets::FolderLock>(s.run);
    open_data(s);
    s.recorded = recorded_config(resolved, s.opt);
    s.identity = run_identity(s.recorded, *s.ds);
    verify_data(s);
    build_model(s, resolved);
    s.state = load_checkpoint(s.last, s.model, *s.optimizer, lasting_keys(s.identity));
    s.eval_splits = s.opt.eval_splits.empty() ? s.ds->splits() : s.opt.eval_splits;
    return claim;
  }

  // Device, threads, allocator, and the other ranks of a data-parallel launch.
  static void set_up_process(Session& s, const config::Node& resolved) {
    if (s.opt.device == "cuda" && !torch::cuda::is_available())
      config::fail_at(resolved.at("train.device").mark(),
                      "train.device is cuda, but this LibTorch has no CUDA device (Debian's libtorch is CPU-only)");
    s.device = torch::Device(s.opt.device == "cuda" ? torch::kCUDA : torch::kCPU);
    // More threads than cores only time-slice them; the results never depend on the count.
    const int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    if (s.opt.threads > 0) at::set_num_threads(std::min(s.opt.threads, cores));
    // Keeps freed tensor memory in the process: page faults on fresh multi-MB buffers otherwise double step time.
    models::tune_allocator();
    if (s.opt.precision == "bf16" && s.device.is_cpu()) settle_onednn();
    if (fused_products(s.opt) && s.device.is_cpu() && models::bf16_products_engine().empty())
      config::fail_at(resolved.at("train.bf16_products").mark(),
                      "train.bf16_products is fused, but oneDNN here has no bfloat16 arithmetic (" +
                          onednn_state(false).isa + "; it needs AVX512_BF16 or AMX): use autocast");
    // Joined before anything else can fail, so that a rank which stops early stops the others at once.
    s.dp = DataParallel::join(launch_rank(), std::chrono::seconds(s.opt.dist_timeout));
    s.rank = s.dp ? s.dp->rank() : 0;
    s.ranks = s.dp ? s.dp->world_size() : 1;
    s.lead = s.rank == 0;
  }

  static void open_data(Session& s) {
    s.ds.emplace(datasets::Dataset::open(s.opt.data));
    s.plan = plan_feed(*s.ds, s.opt);
    s.positions = positions_of(*s.ds);
    if (s.positions.size(0) != s.plan.tokens)
      throw UserError(s.ds->path().string() + ": /positions has " + std::to_string(s.positions.size(0)) +
                      " tokens but '" + s.plan.input + "' has " + std::to_string(s.plan.tokens));
  }

  // Every shard's size and checksum against index.json, once, before anything trains on it.
  static void verify_data(Session& s) {
    if (s.ds->is_folder()) s.ds->verify();
  }

  static void build_model(Session& s, const config::Node& resolved) {
    s.mopt = s.opt.model;
    s.mopt.encoder().in_channels(s.plan.channels);
    s.mopt.task(s.plan.task == Task::classification ? "classification" : "masked_regression");
    s.mopt.classification().classes(s.plan.classes);
    if (!s.plan.dense_label.empty()) s.mopt.classification().pooling("every");
    if (const auto draw = pe_draw_seed(s.opt, s.identity)) s.mopt.encoder().pe().draw_seed(*draw);
    check_training_memory(s.opt, s.plan, s.ds->samples(s.opt.train_split), resolved);
    try {
      s.model = models::make_model(s.mopt, s.positions, s.opt.seed);
    } catch (const std::invalid_argument& e) {
      // The options passed their schema; what is left is a combination this dataset or model cannot take.
      config::fail_at(resolved.at("model.pe.type").mark(), "model.pe.type '" + s.mopt.encoder().pe().type() +
                                                               "' with these model keys cannot be built on " +
                                                               s.ds->path().string() + ": " + e.what());
    }
    s.model->to(s.device);
    s.optimizer = make_optimizer(s.opt, s.model);
    // Each batch's gradient as the sum of train.micro_batches parts, the parts side by side on the threads, one each.
    s.micro =
        std::make_unique<models::MicroBatches>(models::MicroBatchOptions(s.opt.micro_batches, at::get_num_threads()));
  }

  static void restore(Session& s, const ResumePlan& resume, bool from_file) {
    if (from_file) {
      s.state = load_checkpoint(s.last_source, s.model, *s.optimizer, lasting_keys(s.identity));
      if (s.lead)
        std::cerr << "loci: continuing " << s.run.string() << " from " << s.last_source.string() << " (epoch "
                  << s.state.epoch << ", step " << s.state.step << ")\n";
    } else if (!resume.fresh && fs::exists(s.last)) {
      s.state = load_checkpoint(s.last, s.model, *s.optimizer, lasting_keys(s.identity));
      if (resume.extend) drop_final_evaluation(s);
      if (s.lead)
        std::cerr << "loci: " << (resume.extend ? "extending " : "resuming ") << s.run.string() << " at epoch "
                  << s.state.epoch << ", step " << s.state.step << "\n";
    }
    if (s.dp) {
      const std::int64_t lead_step = s.dp->broadcast(s.state.step, "the step to resume from", s.state.step);
      if (lead_step != s.state.step)
        throw UserError(s.run.string() + ": rank " + std::to_string(s.rank) + " would start at step " +
                        std::to_string(s.state.step) + " but rank 0 at step " + std::to_string(lead_step) +
                        "; every rank must see the same run folder (a shared file system)");
    }
  }

  // A finished run evaluated at its last epoch whatever train.eval_every said; a run asked for more epochs from
  // the start would not have, so that evaluation goes (the model and optimizer are unchanged by it).
  static void drop_final_evaluation(Session& s) {
    const std::int64_t e = s.state.epoch;
    if (e % s.opt.eval_every == 0) return;
    auto& rows = s.state.rows;
    rows.erase(std::remove_if(rows.begin(), rows.end(), [e](const MetricsRow& r) { return r.epoch == e; }), rows.end());
    auto& pe = s.state.pe_history;
    pe.erase(std::remove_if(pe.begin(), pe.end(), [e](const PeSnapshot& p) { return p.epoch == e; }), pe.end());
  }

  static void plan_epochs(Session& s, const config::Node& resolved, const plugins::TrainRequest& request) {
    s.eval_splits = s.opt.eval_splits.empty() ? s.ds->splits() : s.opt.eval_splits;
    for (const auto& split : s.eval_splits)
      s.ds->samples(split);  // an unknown split is an error now, not at the first eval
    if (!s.opt.checkpoint_best.empty() &&
        std::find(s.eval_splits.begin(), s.eval_splits.end(), s.opt.checkpoint_best) == s.eval_splits.end())
      config::fail_at(
          resolved.at("train.checkpoint.best").mark(),
          "train.checkpoint.best: split '" + s.opt.checkpoint_best + "' is not evaluated (see task.eval_splits)");
    s.attention_split = s.opt.save_attention ? attention_split_of(s.opt, *s.ds, s.eval_splits,
                                                                  resolved.at("train.attention_split").mark().str())
                                             : "";
    s.per_epoch = datasets::BatchStream(*s.ds, s.plan.stream_options(s.opt.train_split, s.opt.batch_size)).batches();
    if (s.per_epoch == 0)
      config::fail_at(resolved.at("task.train_split").mark(), "task.train_split '" + s.opt.train_split + "' of " +
                                                                  s.ds->path().string() +
                                                                  " holds no samples; nothing to train on");
    s.total_steps = s.opt.steps > 0 ? s.opt.steps : s.opt.epochs * s.per_epoch;
    s.total_epochs = s.opt.steps > 0 ? (s.opt.steps + s.per_epoch - 1) / s.per_epoch : s.opt.epochs;
    s.progress_shown = s.lead && s.opt.progress && request.progress;
    s.say = s.lead && request.progress;
    if (s.lead) s.means = token_means(*s.ds, s.opt.train_split, s.plan);
  }
};

}  // namespace

}  // namespace loci::torch_trainer

LOCI_PLUGIN(
    LOCI_PLUGIN_TRAINER, "torch_trainer", "0.1.0",
    "LibTorch trainer: the paper's transformer with any positional encoding, LST classification or masked regression",
    loci::torch_trainer::schema_text(), loci::torch_trainer::TorchTrainer)
