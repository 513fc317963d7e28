// torch_trainer: trains the paper's transformer (models/) with any positional encoding on a loci dataset and
// writes a run folder: config.yaml, metrics.csv/.jsonl, pe.h5, checkpoints/last.pt, summary.json. Launched as
// several ranks (torchrun-style), it trains data-parallel: each rank computes its part of every global batch, the
// gradients are averaged across ranks, and rank 0 alone evaluates and writes the run folder.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <optional>
#include <sstream>
#include <thread>

#include "checkpoint_state.hpp"
#include "data_parallel.hpp"
#include "memory_check.hpp"
#include "datasets/atomic_file.hpp"
#include "datasets/checksum.hpp"
#include "datasets/folder_lock.hpp"
#include "datasets/progress.hpp"
#include "lr_schedule.hpp"
#include "models/allocator.hpp"
#include "models/blas_info.hpp"
#include "models/jit_gemm.hpp"
#include "models/micro_batches.hpp"
#include "models/precision_scope.hpp"
#include "optimizer.hpp"
#include "pause_signal.hpp"
#include "numerics_summary.hpp"
#include "onednn_state.hpp"
#include "run_identity.hpp"
#include "plugins/api/config/options.hpp"
#include "plugins/api/config/yaml_io.hpp"
#include "cpu/blas_kernel.hpp"
#include "plugins/api/error.hpp"
#include "plugins/api/provenance.hpp"
#include "plugins/api/launch.hpp"
#include "plugins/api/plugin.hpp"
#include "sim/random/stream.hpp"
#include "train_options.hpp"

namespace loci::torch_trainer {

namespace {

namespace fs = std::filesystem;

// bf16 whose products run in the fused layers (train.bf16_products: fused), not under autocast.
bool fused_products(const TrainOptions& o) { return o.precision == "bf16" && o.bf16_products == "fused"; }

torch::Tensor positions_of(const data::Dataset& ds) {
  const auto a = ds.read_dataset_array("positions");
  if (a.spec.shape.size() != 2) throw UserError(ds.path().string() + ": /positions must be [token, axis]");
  std::vector<float> v(static_cast<std::size_t>(a.spec.elements()));
  if (a.spec.dtype == data::DType::f32) std::memcpy(v.data(), a.bytes.data(), a.bytes.size());
  else if (a.spec.dtype == data::DType::f64)
    for (std::size_t i = 0; i < v.size(); ++i) v[i] = static_cast<float>(reinterpret_cast<const double*>(a.bytes.data())[i]);
  else throw UserError(ds.path().string() + ": /positions must be float32 or float64");
  for (std::size_t i = 0; i < v.size(); ++i)
    if (!std::isfinite(v[i]))
      throw UserError(ds.path().string() + ": /positions holds " + std::to_string(v[i]) + " at token " +
                      std::to_string(i / static_cast<std::size_t>(a.spec.shape[1])) +
                      "; true positions must be finite numbers");
  return torch::from_blob(v.data(), {a.spec.shape[0], a.spec.shape[1]}, torch::kFloat32).clone();
}

double pe_norm(const models::Model& model) {
  const models::SingleThreadScope one;  // norms summed per thread would depend on the thread count
  double sum = 0;
  int n = 0;
  for (const auto& m : model->pe_matrices())
    if (m.defined() && m.numel() > 0 && m.dim() == 2) {
      sum += m.norm().item<double>();
      ++n;
    }
  return n ? sum / n : -1;
}

// The split whose samples the saved attention maps average: the configured one (an unknown name is an error), else
// the human puzzles, else test, else the first evaluated split. `where` is the key's position in the config.
std::string attention_split_of(const TrainOptions& opt, const data::Dataset& ds, const std::vector<std::string>& eval_splits,
                               const std::string& where) {
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

std::string describe(const SplitMetrics& m) {
  char buf[128];
  if (m.accuracy >= 0) std::snprintf(buf, sizeof buf, "%s acc %.3f loss %.4f", m.split.c_str(), m.accuracy, m.loss);
  else std::snprintf(buf, sizeof buf, "%s mse %.5f", m.split.c_str(), m.mse);
  return buf;
}

// Everything one training run holds while it goes: built by TorchTrainer::prepare, advanced epoch by epoch.
struct Session {
  TrainOptions opt;
  config::Node recorded;  // config.yaml: resolved, with the effective init and absolute paths
  torch::Device device = torch::kCPU;
  std::unique_ptr<DataParallel> dp;
  int rank = 0, ranks = 1;
  bool lead = true;  // the one rank that evaluates and writes; the run folder must be shared by all
  fs::path run, last, last_source;  // last_source: the checkpoint `--from` names
  std::unique_ptr<data::FolderLock> claim;
  std::optional<data::Dataset> ds;
  FeedPlan plan;
  torch::Tensor positions;
  models::ModelOptions mopt;
  models::Model model{nullptr};
  std::unique_ptr<torch::optim::Optimizer> optimizer;
  std::unique_ptr<models::MicroBatches> micro;
  RunState state;
  std::vector<std::string> eval_splits;
  std::string attention_split;
  TokenMeans means;  // masked regression: the training split's means, the baselines of every evaluation
  std::int64_t per_epoch = 0, total_steps = 0, total_epochs = 0;
  bool progress_shown = false;  // the bar (train.progress, on a terminal or as lines in a log)
  bool say = true;              // one line per evaluation: everywhere but under -q
  std::string started_at;       // this invocation's start, for provenance.json
};

class TorchTrainer final : public Trainer {
 public:
  void train(const config::Node& resolved, const TrainRequest& request) override {
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
    if (!request.from.empty()) use_checkpoint(s, request.from);
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

 private:
  static constexpr const char* kRefused = "refused: ";

  // `--dry-run`: "<run folder>: <what training would do>", decided as a real start decides it.
  static std::string describe_plan(const config::Node& resolved, TrainOptions opt, const TrainRequest& request) {
    fs::path run = opt.out;
    if (!fs::exists(fs::path(opt.data) / "index.json"))
      return run.string() + ": " +
             (fs::exists(run / "summary.json") ? "finished; its data " + opt.data + " are not there to check it against"
                                               : "new (its data " + opt.data + " are not made yet)");
    const data::Dataset ds = data::Dataset::open(opt.data);
    const config::Identity identity = run_identity(recorded_config(resolved, opt), ds);
    bool resume = request.resume;
    if (opt.on_other_settings == "new_folder" && made_otherwise(run, identity)) {
      run = run.string() + "@" + identity.hash.substr(0, 8);
      opt.out = run.string();
      resume = true;
    }
    try {
      const ResumePlan p = plan_resume(run, identity, opt, resume);
      if (p.fresh) return run.string() + ": new, " + std::to_string(opt.epochs) + " epochs";
      if (!p.finished) return run.string() + ": interrupted; continues from its last checkpoint";
      if (p.extend)
        return run.string() + ": finished at epoch " + std::to_string(p.done_epochs) + "; continues to epoch " +
               std::to_string(opt.epochs);
      return run.string() + ": finished; kept";
    } catch (const UserError& e) {
      return std::string(kRefused) + e.what();
    }
  }

  // Device, threads, allocator, and the other ranks of a data-parallel launch.
  static void set_up_process(Session& s, const config::Node& resolved) {
    if (s.opt.device == "cuda" && !torch::cuda::is_available())
      throw UserError(resolved.at("train.device").mark().str() +
                      ": train.device is cuda, but this LibTorch has no CUDA device (Debian's libtorch is CPU-only)");
    s.device = torch::Device(s.opt.device == "cuda" ? torch::kCUDA : torch::kCPU);
    // More threads than cores only time-slice them; the results never depend on the count.
    const int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    if (s.opt.threads > 0) at::set_num_threads(std::min(s.opt.threads, cores));
    // Keeps freed tensor memory in the process: page faults on fresh multi-MB buffers otherwise double step time.
    models::tune_allocator();
    if (s.opt.precision == "bf16" && s.device.is_cpu()) settle_onednn();
    if (fused_products(s.opt) && s.device.is_cpu() && models::bf16_products_engine().empty())
      throw UserError(resolved.at("train.bf16_products").mark().str() +
                      ": train.bf16_products is fused, but oneDNN here has no bfloat16 arithmetic (" +
                      onednn_state(false).isa + "; it needs AVX512_BF16 or AMX): use autocast");
    // Joined before anything else can fail, so that a rank which stops early stops the others at once.
    s.dp = DataParallel::join(launch_rank(), std::chrono::seconds(s.opt.dist_timeout));
    s.rank = s.dp ? s.dp->rank() : 0;
    s.ranks = s.dp ? s.dp->world_size() : 1;
    s.lead = s.rank == 0;
  }

  // One writer per run folder; temporary files a killed writer left are removed under the claim.
  static void claim_run_folder(Session& s) {
    s.run = s.opt.out;
    s.last = s.run / "checkpoints" / "last.pt";
    if (!s.lead) return;
    data::make_folder(s.run / "checkpoints");
    s.claim = std::make_unique<data::FolderLock>(s.run);
    for (const fs::path dir : {s.run, s.run / "checkpoints"}) {
      std::error_code ec;
      for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
        const std::string name = it->path().filename().string();
        if (name.size() > 4 && name[0] == '.' && name.compare(name.size() - 4, 4, ".tmp") == 0)
          fs::remove(it->path(), ec);
      }
    }
  }

  static void open_data(Session& s) {
    s.ds.emplace(data::Dataset::open(s.opt.data));
    s.plan = plan_feed(*s.ds, s.opt);
    s.positions = positions_of(*s.ds);
    if (s.positions.size(0) != s.plan.tokens)
      throw UserError(s.ds->path().string() + ": /positions has " + std::to_string(s.positions.size(0)) +
                      " tokens but '" + s.plan.input + "' has " + std::to_string(s.plan.tokens));
  }

  // The run in the folder must be the one asked for; a new or continued run records what it is made from.
  static ResumePlan check_identity(Session& s, const config::Node& resolved, const TrainRequest& request) {
    s.recorded = recorded_config(resolved, s.opt);
    const config::Identity identity = run_identity(s.recorded, *s.ds);
    if (s.dp) s.dp->agree(identity);  // before any rank reads or writes the folder under its own settings
    if (s.opt.on_other_settings == "new_folder" && made_otherwise(s.run, identity)) {
      // Asked for: these settings get a folder of their own beside the other run, found again on a rerun.
      s.opt.out = s.run.string() + "@" + identity.hash.substr(0, 8);
      if (s.lead) std::cerr << "loci: " << s.run.string() << " holds a run made otherwise; training into " << s.opt.out << "\n";
      claim_run_folder(s);
      s.recorded = recorded_config(resolved, s.opt);
      const ResumePlan plan = plan_resume(s.run, identity, s.opt, true);
      write_record(s, identity, plan);
      return plan;
    }
    const ResumePlan plan = plan_resume(s.run, identity, s.opt, request.resume);
    write_record(s, identity, plan);
    return plan;
  }

  // A new or continued run records what it is made from.
  static void write_record(Session& s, const config::Identity& identity, const ResumePlan& plan) {
    if (!s.lead || (plan.finished && !plan.extend)) return;
    data::write_file_atomically(s.run / "config.yaml", config::to_yaml(s.recorded));
    write_identity(s.run, identity);
    if (plan.extend) fs::remove(s.run / "summary.json");  // running again until it finishes anew
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
    check_training_memory(s.opt, s.plan, s.ds->samples(s.opt.train_split), resolved);
    try {
      s.model = models::make_model(s.mopt, s.positions, s.opt.seed);
    } catch (const std::invalid_argument& e) {
      // The options passed their schema; what is left is a combination this dataset or model cannot take.
      throw UserError(resolved.at("model.pe.type").mark().str() + ": model.pe.type '" + s.mopt.encoder().pe().type() +
                      "' with these model keys cannot be built on " + s.ds->path().string() + ": " + e.what());
    }
    s.model->to(s.device);
    s.optimizer = make_optimizer(s.opt, s.model);
    // Each batch's gradient as the sum of train.micro_batches parts, the parts side by side on the threads, one each.
    s.micro = std::make_unique<models::MicroBatches>(models::MicroBatchOptions(s.opt.micro_batches, at::get_num_threads()));
  }

  // `--from FILE`: that checkpoint, not last.pt, is where the run goes on; a finished run runs again from it.
  static void use_checkpoint(Session& s, const std::string& from) {
    if (!fs::is_regular_file(from)) throw UserError("--from " + from + ": no such checkpoint file");
    // Another run's checkpoint would continue that run's state under this run's identity: a silent mix-up.
    std::error_code ec;
    if (fs::weakly_canonical(fs::path(from).parent_path(), ec) != fs::weakly_canonical(s.run / "checkpoints", ec))
      throw UserError("--from " + from + ": not a checkpoint of this run (" + (s.run / "checkpoints").string() +
                      "); continue a run from its own checkpoints");
    s.last_source = from;
    if (s.lead) fs::remove(s.run / "summary.json");
  }

  static void restore(Session& s, const ResumePlan& resume, bool from_file) {
    if (from_file) {
      s.state = load_checkpoint(s.last_source, s.model, *s.optimizer);
      if (s.lead)
        std::cerr << "loci: continuing " << s.run.string() << " from " << s.last_source.string() << " (epoch "
                  << s.state.epoch << ", step " << s.state.step << ")\n";
    } else if (!resume.fresh && fs::exists(s.last)) {
      s.state = load_checkpoint(s.last, s.model, *s.optimizer);
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

  static void plan_epochs(Session& s, const config::Node& resolved, const TrainRequest& request) {
    s.eval_splits = s.opt.eval_splits.empty() ? s.ds->splits() : s.opt.eval_splits;
    for (const auto& split : s.eval_splits) s.ds->samples(split);  // an unknown split is an error now, not at the first eval
    if (!s.opt.checkpoint_best.empty() &&
        std::find(s.eval_splits.begin(), s.eval_splits.end(), s.opt.checkpoint_best) == s.eval_splits.end())
      throw UserError(resolved.at("train.checkpoint.best").mark().str() + ": train.checkpoint.best: split '" +
                      s.opt.checkpoint_best + "' is not evaluated (see task.eval_splits)");
    s.attention_split = s.opt.save_attention ? attention_split_of(s.opt, *s.ds, s.eval_splits,
                                                                  resolved.at("train.attention_split").mark().str())
                                             : "";
    s.per_epoch = data::BatchStream(*s.ds, data::BatchStreamOptions(s.opt.train_split, s.plan.arrays(), s.opt.batch_size))
                      .batches();
    if (s.per_epoch == 0)
      throw UserError(resolved.at("task.train_split").mark().str() + ": task.train_split '" + s.opt.train_split +
                      "' of " + s.ds->path().string() + " holds no samples; nothing to train on");
    s.total_steps = s.opt.steps > 0 ? s.opt.steps : s.opt.epochs * s.per_epoch;
    s.total_epochs = s.opt.steps > 0 ? (s.opt.steps + s.per_epoch - 1) / s.per_epoch : s.opt.epochs;
    s.progress_shown = s.lead && s.opt.progress && request.progress;
    s.say = s.lead && request.progress;
    if (s.lead) s.means = token_means(*s.ds, s.opt.train_split, s.plan);
  }

  // The PE at initialisation, epoch 0 of pe.h5 (and attention.h5): the baseline of every probe, and what the
  // displacement PE(t) - PE(0) is measured from.
  static void record_initial_pe(Session& s) {
    if (!s.lead || s.state.epoch != 0 || !s.state.pe_history.empty()) return;
    s.state.pe_history.push_back(snapshot(s.model, *s.ds, s.plan, s.opt, s.attention_split, s.state));
  }

  // The epochs still to go; returns the run's status: finished, early_stopped or paused.
  std::string run_epochs(Session& s, const TrainRequest& request) const {
    data::Progress progress(data::ProgressOptions("training", s.total_epochs).unit("epochs").enabled(s.progress_shown));
    progress.advance(s.state.epoch);
    bool stop = s.state.step >= s.total_steps;
    std::string status = "finished";
    while (!stop && s.state.epoch < s.total_epochs) {
      if (request.until_epoch > 0 && s.state.epoch >= request.until_epoch) {
        status = "paused";
        break;
      }
      const EpochTally tally = run_epoch(s, stop);
      ++s.state.epoch;
      s.state.seconds += tally.seconds;
      if (s.progress_shown && tally.seen > 0) progress.set_status(tally.describe(s.plan.task));
      progress.advance();
      const bool last_epoch = stop || s.state.epoch >= s.total_epochs;
      if (s.state.epoch % s.opt.eval_every == 0 || last_epoch) {
        if (s.lead && evaluate_and_save(s)) {
          status = "early_stopped";
          stop = true;
        }
        // Early stopping is rank 0's; the others wait out its evaluation under a bound of its own.
        if (s.dp)
          stop = s.dp->broadcast(stop, "rank 0's stop decision", s.state.step,
                                 std::chrono::seconds(s.opt.dist_eval_timeout)) != 0;
      } else if (s.lead && ((request.until_epoch > 0 && s.state.epoch >= request.until_epoch) ||
                            (!s.dp && !last_epoch && PauseSignal::requested()))) {
        save_checkpoint(s.last, s.model, *s.optimizer, s.state, s.plan.condition_names);
      }
      // Asked to stop (SIGUSR1, a scheduler's warning): the epoch is done and checkpointed, --resume goes on.
      // A data-parallel run keeps going: its ranks would have to agree on the epoch first.
      if (!stop && !s.dp && !last_epoch && PauseSignal::requested()) {
        if (s.say) std::cerr << "loci: paused at epoch " << s.state.epoch << " on SIGUSR1, checkpointed; --resume continues\n";
        status = "paused";
        break;
      }
    }
    progress.finish();
    return status;
  }

  // The running loss and accuracy of an epoch, for the progress bar (the metrics files hold evaluations only).
  struct EpochTally {
    double loss_sum = 0, seconds = 0;
    std::int64_t seen = 0, correct = 0;
    std::string describe(Task task) const {
      char text[128];
      const double rate = seconds > 0 ? static_cast<double>(seen) / seconds : 0.0;
      if (task == Task::classification)
        std::snprintf(text, sizeof text, "loss %.4f  acc %.1f%%  %.0f samples/s", loss_sum / static_cast<double>(seen),
                      100.0 * static_cast<double>(correct) / static_cast<double>(seen), rate);
      else
        std::snprintf(text, sizeof text, "loss %.5f  %.0f samples/s", loss_sum / static_cast<double>(seen), rate);
      return text;
    }
  };

  // One pass over this epoch's batches (this rank's part of each); sets `stop` when train.steps is reached.
  EpochTally run_epoch(Session& s, bool& stop) const {
    const auto t0 = std::chrono::steady_clock::now();
    const auto epoch = static_cast<std::uint64_t>(s.state.epoch);
    // Every random draw of this epoch (dropout, masks) follows from (seed, epoch): resuming re-creates it exactly.
    torch::manual_seed(sim::Rng::stream(s.opt.seed, "epoch", epoch)());
    const std::uint64_t dropout_seed = sim::Rng::stream(s.opt.seed, "dropout", epoch)();
    s.micro->reseed([&](int p) {
      return sim::Rng::stream(dropout_seed, "part", static_cast<std::uint64_t>(s.rank * s.micro->options().parts() + p))();
    });
    at::Generator mask_gen = models::make_generator(sim::Rng::stream(s.opt.seed, "mask", epoch)());
    s.model->train();
    // With several ranks, each reads its own part of every global batch of this epoch's order.
    data::BatchStream stream(*s.ds, data::BatchStreamOptions(s.opt.train_split, s.plan.arrays(), s.opt.batch_size)
                                        .seed(s.opt.seed)
                                        .epoch(s.state.epoch)
                                        .rank(s.rank)
                                        .ranks(s.ranks));
    data::Batch batch;
    EpochTally tally;
    while (stream.next(batch)) {
      train_step(s, stream, batch, mask_gen, tally);
      if (++s.state.step >= s.total_steps) {
        stop = true;
        break;
      }
    }
    tally.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return tally;
  }

  // One optimizer step on one global batch: this rank's part as micro-batches, gradients averaged over ranks.
  void train_step(Session& s, const data::BatchStream& stream, const data::Batch& batch, at::Generator& mask_gen,
                  EpochTally& tally) const {
    const TrainOptions& opt = s.opt;
    const double lr = learning_rate(opt.schedule, opt.lr, opt.min_lr, opt.warmup_steps, s.state.step, s.total_steps);
    set_learning_rate(*s.optimizer, opt, lr);
    // The mask of the whole global batch, cut to this rank's part: every rank draws what one process would.
    torch::Tensor mask;
    if (s.plan.task == Task::masked_regression)
      mask = s.model->sample_mask(batch.global_size, mask_gen).narrow(0, batch.offset, batch.size).to(s.device);
    s.optimizer->zero_grad();
    if (batch.size > 0) {  // empty only for a rank whose part of a final, tiny global batch is nothing
      const Feed f = Feed::from(batch, s.plan, stream);
      const torch::Tensor x = f.x.to(s.device);
      const torch::Tensor target_index = f.target.defined() ? f.target.to(s.device) : f.target;
      const torch::Tensor label = s.plan.task == Task::classification ? f.label.to(s.device) : torch::Tensor();
      const int parts = s.micro->options().parts();
      std::vector<torch::Tensor> outputs(static_cast<std::size_t>(parts));
      const std::vector<double> losses = s.micro->backward(s.model->parameters(), [&](int p) -> torch::Tensor {
        const auto [begin, end] = models::MicroBatches::range(p, parts, batch.size);
        if (begin == end) return {};
        auto part = [&, b = begin, e = end](const torch::Tensor& t) { return t.defined() ? t.narrow(0, b, e - b) : t; };
        const models::ModelInput in{part(x), part(target_index), part(mask)};
        // the forward pass only: backward follows what forward recorded (autocast's dtypes, the fused layers' choice)
        const models::PrecisionScope precision(opt.precision, opt.bf16_products, s.device.type());
        const models::ModelOutput out = s.model->forward(in);
        outputs[static_cast<std::size_t>(p)] = out.output.detach();
        const double share = static_cast<double>(end - begin) / static_cast<double>(batch.size);
        return s.model->loss(out, in, s.plan.task == Task::classification ? part(label) : in.x).to(torch::kFloat) * share;
      });
      double value = 0;
      for (const double l : losses) value += l;
      if (!std::isfinite(value))
        throw UserError(s.run.string() + ": loss is " + std::to_string(value) + " at epoch " +
                        std::to_string(s.state.epoch) + ", step " + std::to_string(s.state.step) + " (lr " +
                        std::to_string(lr) + "); training stopped" +
                        (fs::exists(s.last) ? "; the last good checkpoint is " + s.last.string() : ""));
      tally.loss_sum += value * static_cast<double>(batch.size);
      tally.seen += batch.size;
      if (s.plan.task == Task::classification && s.progress_shown)
        for (std::size_t p = 0; p < outputs.size(); ++p)
          if (outputs[p].defined()) {
            const auto [begin, end] = models::MicroBatches::range(static_cast<int>(p), parts, batch.size);
            tally.correct += outputs[p].argmax(1).eq(label.narrow(0, begin, end - begin)).sum().item<std::int64_t>();
          }
    }
    if (s.dp)
      s.dp->all_reduce_gradients(s.model->parameters(),
                                 static_cast<double>(batch.size) / static_cast<double>(batch.global_size), s.state.step);
    if (opt.clip_grad_norm > 0) {
      const models::SingleThreadScope one;  // a norm summed per thread would make the bytes depend on threads
      torch::nn::utils::clip_grad_norm_(s.model->parameters(), opt.clip_grad_norm);
    }
    s.optimizer->step();
    s.model->after_optimizer_step();
  }

  // Evaluates, then rewrites every output file and the checkpoint; true when early stopping says stop.
  bool evaluate_and_save(Session& s) const {
    const bool stop =
        evaluate_all(s.model, *s.ds, s.plan, s.opt, s.eval_splits, s.attention_split, s.state, *s.micro, s.means, s.say);
    write_metrics(s.run, s.state.rows, s.plan.condition_names);
    if (!s.attention_split.empty())
      write_attention_file(s.run, s.state.pe_history, s.attention_split, s.ds->samples(s.attention_split));
    const auto& pe = s.mopt.encoder().pe();
    write_pe_file(s.run, s.state.pe_history, s.positions, describe_pe(pe, s.model));
    const bool best = improves_best(s);
    save_checkpoint(s.last, s.model, *s.optimizer, s.state, s.plan.condition_names);
    keep_checkpoints(s, best);
    return stop;
  }

  // train.checkpoint.best: whether this evaluation's loss on that split is the lowest so far (recorded in the state).
  static bool improves_best(Session& s) {
    if (s.opt.checkpoint_best.empty()) return false;
    for (const auto& row : s.state.rows)
      if (row.epoch == s.state.epoch && row.metrics.split == s.opt.checkpoint_best && row.metrics.loss < s.state.best_checkpoint_loss) {
        s.state.best_checkpoint_loss = row.metrics.loss;
        return true;
      }
    return false;
  }

  // Copies of last.pt (just written): best.pt, and epoch_<E>.pt every train.checkpoint.every epochs.
  static void keep_checkpoints(const Session& s, bool best) {
    const bool every = s.opt.checkpoint_every > 0 && s.state.epoch % s.opt.checkpoint_every == 0;
    if (!best && !every) return;
    std::ifstream in(s.last, std::ios::binary);
    const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const fs::path dir = s.run / "checkpoints";
    if (best) data::write_file_atomically(dir / "best.pt", bytes);
    if (every) data::write_file_atomically(dir / ("epoch_" + std::to_string(s.state.epoch) + ".pt"), bytes);
  }

 private:
  // Evaluates every split, records rows and a PE snapshot; true when early stopping says stop.
  // Every PE table (and, when saved, each block's mean attention) as it is now.
  static PeSnapshot snapshot(models::Model& model, const data::Dataset& ds, const FeedPlan& plan, const TrainOptions& opt,
                             const std::string& attention_split, const RunState& state) {
    PeSnapshot snap{state.epoch, state.step, {}, {}, {}};
    for (const auto& m : model->pe_matrices()) snap.matrices.push_back(m.defined() ? m.to(torch::kCPU).clone() : m);
    for (const auto& l : model->position_logits()) snap.position_logits.push_back(l.to(torch::kCPU).clone());
    if (!attention_split.empty())
      snap.attention = mean_attention(model, ds, attention_split, plan, opt.eval_batch_size, opt.seed, state.epoch);
    return snap;
  }

  static bool evaluate_all(models::Model& model, const data::Dataset& ds, const FeedPlan& plan, const TrainOptions& opt,
                    const std::vector<std::string>& splits, const std::string& attention_split, RunState& state,
                    models::MicroBatches& micro, const TokenMeans& means, bool say) {
    std::string line = "loci: epoch " + std::to_string(state.epoch) + " step " + std::to_string(state.step) + ":";
    const double norm = pe_norm(model);
    const double embedding = token_embedding_norm(model, ds, opt.train_split, plan, opt.eval_batch_size);
    const double lr = learning_rate(opt.schedule, opt.lr, opt.min_lr, opt.warmup_steps, state.step,
                                    opt.steps > 0 ? opt.steps : state.step);
    bool stop = false;
    for (const auto& split : splits) {
      MetricsRow row{state.epoch, state.step, state.seconds, lr, norm, embedding,
                     evaluate(model, ds, split, plan, opt.eval_batch_size, opt.seed, micro, -1, means)};
      line += " | " + describe(row.metrics);
      if (opt.early_stop_patience > 0 && split == opt.early_stop_split) {
        if (row.metrics.loss < state.best_loss - opt.early_stop_min_delta) {
          state.best_loss = row.metrics.loss;
          state.evals_without_improvement = 0;
        } else if (++state.evals_without_improvement >= opt.early_stop_patience) {
          stop = true;
        }
      }
      const SplitMetrics at_default = row.metrics;
      state.rows.push_back(std::move(row));
      if (plan.task != Task::masked_regression) continue;
      for (const double ratio : opt.eval_mask_ratios) {
        // The default ratio again draws the same masks: the same numbers, so they are copied, not recomputed.
        const bool same = ratio == model->masked_regression->options().mask_ratio_eval();
        MetricsRow extra{state.epoch, state.step, state.seconds, lr, norm, embedding,
                         same ? at_default
                              : evaluate(model, ds, split, plan, opt.eval_batch_size, opt.seed, micro, ratio, means)};
        extra.metrics.split = split + "@" + config::default_text(ratio);
        state.rows.push_back(std::move(extra));
      }
    }
    state.pe_history.push_back(snapshot(model, ds, plan, opt, attention_split, state));
    if (say) std::cerr << line << "\n";
    return stop;
  }

  // How this invocation ran (provenance.json, one entry per start: a resumed run keeps its earlier ones), apart
  // from what decides the result, so identical runs keep identical result files.
  static void write_provenance(const Session& s, const std::string& status) {
    nlohmann::ordered_json all = nlohmann::ordered_json::array();
    if (std::ifstream in(s.run / "provenance.json"); in) {
      try {
        all = nlohmann::ordered_json::parse(in);
        if (!all.is_array()) all = nlohmann::ordered_json::array();
      } catch (const std::exception&) {
        all = nlohmann::ordered_json::array();  // unreadable: start the record anew rather than stop a run
      }
    }
    nlohmann::ordered_json p = provenance(true);
    p["started"] = s.started_at;
    p["ended"] = utc_now();
    p["status"] = status;
    p["epochs_done"] = s.state.epoch;
    p["data"] = s.recorded.at("data").text();
    const fs::path index = fs::path(s.recorded.at("data").text()) / "index.json";
    std::error_code ec;
    if (fs::is_regular_file(index, ec)) p["data_index_sha256"] = data::sha256_file(index);
    all.push_back(p);
    data::write_file_atomically(s.run / "provenance.json", all.dump(2) + "\n");
  }

  // The trained model under Gaussian noise on its token embeddings, each split at each sd (train.robustness_noise).
  static void write_robustness(Session& s) {
    if (s.opt.robustness_noise.empty()) return;
    std::ostringstream csv;
    csv << "split,noise_std,samples,loss,accuracy,mse\n";
    for (const auto& split : s.eval_splits)
      for (const double sd : s.opt.robustness_noise) {
        const SplitMetrics m = evaluate(s.model, *s.ds, split, s.plan, s.opt.eval_batch_size, s.opt.seed, *s.micro, -1,
                                        s.means, sd);
        auto cell = [](double v) { return v < 0 ? std::string() : config::default_text(v); };
        csv << split << "," << config::default_text(sd) << "," << m.samples << "," << cell(m.loss) << ","
            << cell(m.accuracy) << "," << cell(m.mse) << "\n";
      }
    data::write_file_atomically(s.run / "robustness.csv", csv.str());
  }

  void write_summary(const Session& s, const std::string& status) const {
    const TrainOptions& opt = s.opt;
    const RunState& state = s.state;
    const auto& pe = s.mopt.encoder().pe();
    nlohmann::ordered_json j;
    j["status"] = status;
    j["epochs"] = state.epoch;
    j["steps"] = state.step;
    j["train_seconds"] = state.seconds;
    j["samples_per_second"] = state.seconds > 0 ? static_cast<double>(state.step * opt.batch_size) / state.seconds : 0.0;
    j["seed"] = opt.seed;
    j["precision"] = opt.precision;
    j["micro_batches"] = opt.micro_batches;
    j.update(numerics_summary(opt.precision, fused_products(opt)));
    j["data"] = s.recorded.at("data").text();
    j["task"] = task_record(s.plan);
    j["pe"] = {{"type", pe.type()},
               {"placement", pe.placement()},
               {"init", pe.init() ? pe.init()->name() : ""},
               {"init_std", pe.init() ? pe.init()->std() : 0.0}};
    j["batches_per_epoch"] = s.per_epoch;
    nlohmann::ordered_json final_metrics = nlohmann::ordered_json::object();
    if (!state.rows.empty()) {
      const auto last_epoch = state.rows.back().epoch;
      for (const auto& r : state.rows)
        if (r.epoch == last_epoch) {
          auto m = to_json(r, {});
          m.erase("epoch");
          m.erase("split");
          final_metrics[r.metrics.split] = m;
        }
    }
    j["final"] = final_metrics;
    data::write_file_atomically(s.run / "summary.json", j.dump(2) + "\n");
  }
};

}  // namespace

}  // namespace loci::torch_trainer

LOCI_PLUGIN(LOCI_PLUGIN_TRAINER, "torch_trainer", "0.1.0",
            "LibTorch trainer: the paper's transformer with any positional encoding, LST classification or masked regression",
            loci::torch_trainer::schema_text(), loci::torch_trainer::TorchTrainer)
