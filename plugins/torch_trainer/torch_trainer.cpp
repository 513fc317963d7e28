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
// the human puzzles, else test, else the first evaluated split.
std::string attention_split_of(const TrainOptions& opt, const datasets::Dataset& ds,
                               const std::vector<std::string>& eval_splits) {
  const auto splits = ds.splits();
  if (!opt.attention_split.empty()) {
    if (std::find(splits.begin(), splits.end(), opt.attention_split) == splits.end())
      opt.marks.fail("train.attention_split", "train.attention_split: the dataset " + ds.path().string() +
                                                  " has no split '" + opt.attention_split + "'");
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
    set_up_process(s);
    if (s.process.lead && request.progress) {
      const cpu::Choice kernel = cpu::current();
      std::cerr << "loci: BLAS kernel " << (kernel.kernel.empty() ? "(not OpenBLAS)" : kernel.kernel) << " ("
                << kernel.why << ")\n";
      if (s.opt.precision == models::Precision::bf16 && s.process.device.is_cpu())
        std::cerr << "loci: " << onednn_state(fused_products(s.opt)).why << "\n";
      if (s.process.device.is_cpu())
        std::cerr << "loci: chunk products: " << models::rows::jit_gemm_description() << "\n";
    }
    const PauseSignal pause;  // from here on SIGUSR1 pauses the run instead of ending the process
    claim_run_folder(s);
    open_data(s);
    const ResumePlan resume = check_identity(s, resolved, request);
    s.process.started_at = utc_now();
    if (!request.from.empty())
      use_checkpoint(s, request.from);
    else if (resume.finished && !resume.extend) {
      std::cerr << "loci: " << s.folder.run.string() << " has finished already (summary.json); nothing to do\n";
      return;
    }
    verify_data(s);
    build_model(s);
    restore(s, resume, !request.from.empty());
    plan_epochs(s, request);
    record_initial_pe(s);
    const std::string status = run_epochs(s, request);
    if (s.process.lead && status != "paused") {
      write_robustness(s);
      write_summary(s, status);
    }
    if (s.process.lead) write_provenance(s, status);
  }

  // The finished run's model, loaded from its last checkpoint under the run's own settings, evaluated with its PE
  // changed; the run folder is claimed meanwhile, so no training writes it, and only interventions.* are written.
  void intervene(const config::Node& resolved, const plugins::InterveneRequest& request) override {
    Session s;
    const auto claim = load_trained(s, resolved, request.run, request.threads);
    s.data.means = token_means(*s.data.ds, s.opt.train_split, s.data.plan);
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
    s.folder.run = run;
    s.folder.last = s.folder.run / "checkpoints" / "last.pt";
    check_finished_run(s);
    set_up_process(s);
    auto claim = std::make_unique<datasets::FolderLock>(s.folder.run);
    open_data(s);
    s.folder.recorded = recorded_config(resolved, s.opt);
    s.folder.identity = run_identity(s.folder.recorded, *s.data.ds);
    verify_data(s);
    build_model(s);
    s.schedule.state =
        load_checkpoint(s.folder.last, s.learner.model, *s.learner.optimizer, lasting_keys(s.folder.identity));
    s.data.eval_splits = s.opt.eval_splits.empty() ? s.data.ds->splits() : s.opt.eval_splits;
    return claim;
  }

  // Device, threads, allocator, and the other ranks of a data-parallel launch.
  static void set_up_process(Session& s) {
    if (s.opt.device == Device::cuda && !torch::cuda::is_available())
      s.opt.marks.fail("train.device",
                       "train.device is cuda, but this LibTorch has no CUDA device (Debian's libtorch is CPU-only)");
    s.process.device = torch::Device(s.opt.device == Device::cuda ? torch::kCUDA : torch::kCPU);
    // More threads than cores only time-slice them; the results never depend on the count.
    const int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    if (s.opt.threads > 0) at::set_num_threads(std::min(s.opt.threads, cores));
    // Keeps freed tensor memory in the process: page faults on fresh multi-MB buffers otherwise double step time.
    models::tune_allocator();
    if (s.opt.precision == models::Precision::bf16 && s.process.device.is_cpu()) settle_onednn();
    if (fused_products(s.opt) && s.process.device.is_cpu() && models::bf16_products_engine().empty())
      s.opt.marks.fail("train.bf16_products",
                       "train.bf16_products is fused, but oneDNN here has no bfloat16 arithmetic (" +
                           onednn_state(false).isa + "; it needs AVX512_BF16 or AMX): use autocast");
    // Joined before anything else can fail, so that a rank which stops early stops the others at once.
    s.process.dp = DataParallel::join(launch_rank(), std::chrono::seconds(s.opt.dist_timeout));
    s.process.rank = s.process.dp ? s.process.dp->rank() : 0;
    s.process.ranks = s.process.dp ? s.process.dp->world_size() : 1;
    s.process.lead = s.process.rank == 0;
  }

  static void open_data(Session& s) {
    s.data.ds.emplace(datasets::Dataset::open(s.opt.data));
    s.data.plan = plan_feed(*s.data.ds, s.opt);
    s.data.positions = positions_of(*s.data.ds);
    if (s.data.positions.size(0) != s.data.plan.tokens)
      throw UserError(s.data.ds->path().string() + ": /positions has " + std::to_string(s.data.positions.size(0)) +
                      " tokens but '" + s.data.plan.input + "' has " + std::to_string(s.data.plan.tokens));
  }

  // Every shard's size and checksum against index.json, once, before anything trains on it.
  static void verify_data(Session& s) {
    if (s.data.ds->is_folder()) s.data.ds->verify();
  }

  static void build_model(Session& s) {
    s.learner.mopt = s.opt.model;
    s.learner.mopt.encoder().in_channels(s.data.plan.channels);
    s.learner.mopt.task(s.data.plan.task);
    s.learner.mopt.classification().classes(s.data.plan.classes);
    if (!s.data.plan.dense_label.empty()) s.learner.mopt.classification().pooling(models::Pooling::every);
    if (const auto draw = pe_draw_seed(s.opt, s.folder.identity)) s.learner.mopt.encoder().pe().draw_seed(*draw);
    check_training_memory(s.opt, s.data.plan, s.data.ds->samples(s.opt.train_split));
    try {
      s.learner.model = models::make_model(s.learner.mopt, s.data.positions, s.opt.seed);
    } catch (const std::invalid_argument& e) {
      // The options passed their schema; what is left is a combination this dataset or model cannot take.
      s.opt.marks.fail("model.pe.type", "model.pe.type '" + s.learner.mopt.encoder().pe().type() +
                                            "' with these model keys cannot be built on " + s.data.ds->path().string() +
                                            ": " + e.what());
    }
    s.learner.model->to(s.process.device);
    s.learner.optimizer = make_optimizer(s.opt, s.learner.model);
    // Each batch's gradient as the sum of train.micro_batches parts, the parts side by side on the threads, one each.
    s.learner.micro =
        std::make_unique<models::MicroBatches>(models::MicroBatchOptions(s.opt.micro_batches, at::get_num_threads()));
  }

  static void restore(Session& s, const ResumePlan& resume, bool from_file) {
    if (from_file) {
      s.schedule.state =
          load_checkpoint(s.folder.last_source, s.learner.model, *s.learner.optimizer, lasting_keys(s.folder.identity));
      if (s.process.lead)
        std::cerr << "loci: continuing " << s.folder.run.string() << " from " << s.folder.last_source.string()
                  << " (epoch " << s.schedule.state.epoch << ", step " << s.schedule.state.step << ")\n";
    } else if (!resume.fresh && fs::exists(s.folder.last)) {
      s.schedule.state =
          load_checkpoint(s.folder.last, s.learner.model, *s.learner.optimizer, lasting_keys(s.folder.identity));
      if (resume.extend) drop_final_evaluation(s);
      if (s.process.lead)
        std::cerr << "loci: " << (resume.extend ? "extending " : "resuming ") << s.folder.run.string() << " at epoch "
                  << s.schedule.state.epoch << ", step " << s.schedule.state.step << "\n";
    }
    if (s.process.dp) {
      const std::int64_t lead_step =
          s.process.dp->broadcast(s.schedule.state.step, "the step to resume from", s.schedule.state.step);
      if (lead_step != s.schedule.state.step)
        throw UserError(s.folder.run.string() + ": rank " + std::to_string(s.process.rank) + " would start at step " +
                        std::to_string(s.schedule.state.step) + " but rank 0 at step " + std::to_string(lead_step) +
                        "; every rank must see the same run folder (a shared file system)");
    }
  }

  // A finished run evaluated at its last epoch whatever train.eval_every said; a run asked for more epochs from
  // the start would not have, so that evaluation goes (the model and optimizer are unchanged by it).
  static void drop_final_evaluation(Session& s) {
    const std::int64_t e = s.schedule.state.epoch;
    if (e % s.opt.eval_every == 0) return;
    auto& rows = s.schedule.state.rows;
    rows.erase(std::remove_if(rows.begin(), rows.end(), [e](const MetricsRow& r) { return r.epoch == e; }), rows.end());
    auto& pe = s.schedule.state.pe_history;
    pe.erase(std::remove_if(pe.begin(), pe.end(), [e](const PeSnapshot& p) { return p.epoch == e; }), pe.end());
  }

  static void plan_epochs(Session& s, const plugins::TrainRequest& request) {
    s.data.eval_splits = s.opt.eval_splits.empty() ? s.data.ds->splits() : s.opt.eval_splits;
    for (const auto& split : s.data.eval_splits)
      s.data.ds->samples(split);  // an unknown split is an error now, not at the first eval
    if (!s.opt.checkpoint_best.empty() && std::find(s.data.eval_splits.begin(), s.data.eval_splits.end(),
                                                    s.opt.checkpoint_best) == s.data.eval_splits.end())
      s.opt.marks.fail("train.checkpoint.best", "train.checkpoint.best: split '" + s.opt.checkpoint_best +
                                                    "' is not evaluated (see task.eval_splits)");
    s.data.attention_split = s.opt.save_attention ? attention_split_of(s.opt, *s.data.ds, s.data.eval_splits) : "";
    s.schedule.per_epoch =
        datasets::BatchStream(*s.data.ds, s.data.plan.stream_options(s.opt.train_split, s.opt.batch_size)).batches();
    if (s.schedule.per_epoch == 0)
      s.opt.marks.fail("task.train_split", "task.train_split '" + s.opt.train_split + "' of " +
                                               s.data.ds->path().string() + " holds no samples; nothing to train on");
    s.schedule.total_steps = s.opt.steps > 0 ? s.opt.steps : s.opt.epochs * s.schedule.per_epoch;
    s.schedule.total_epochs =
        s.opt.steps > 0 ? (s.opt.steps + s.schedule.per_epoch - 1) / s.schedule.per_epoch : s.opt.epochs;
    s.process.progress_shown = s.process.lead && s.opt.progress && request.progress;
    s.process.say = s.process.lead && request.progress;
    if (s.process.lead) s.data.means = token_means(*s.data.ds, s.opt.train_split, s.data.plan);
  }
};

}  // namespace

}  // namespace loci::torch_trainer

LOCI_PLUGIN(
    LOCI_PLUGIN_TRAINER, "torch_trainer", "0.1.0",
    "LibTorch trainer: the paper's transformer with any positional encoding, LST classification or masked regression",
    loci::torch_trainer::schema_text(), loci::torch_trainer::TorchTrainer)
