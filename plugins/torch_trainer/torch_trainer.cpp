// torch_trainer: trains the paper's transformer (models/) with any positional encoding on a loci dataset and
// writes a run folder: config.yaml, metrics.csv/.jsonl, pe.h5, checkpoints/last.pt, summary.json. Launched as
// several ranks (torchrun-style), it trains data-parallel: each rank computes its part of every global batch, the
// gradients are averaged across ranks, and rank 0 alone evaluates and writes the run folder.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iostream>

#include "checkpoint_state.hpp"
#include "data_parallel.hpp"
#include "datasets/atomic_file.hpp"
#include "datasets/progress.hpp"
#include "lr_schedule.hpp"
#include "models/allocator.hpp"
#include "models/blas_info.hpp"
#include "models/micro_batches.hpp"
#include "optimizer.hpp"
#include "precision.hpp"
#include "plugins/api/config/yaml_io.hpp"
#include "plugins/api/error.hpp"
#include "plugins/api/launch.hpp"
#include "plugins/api/plugin.hpp"
#include "sim/random/stream.hpp"
#include "trainer_schema.hpp"

namespace loci::torch_trainer {

namespace {

namespace fs = std::filesystem;

torch::Tensor positions_of(const data::Dataset& ds) {
  const auto a = ds.read_dataset_array("positions");
  if (a.spec.shape.size() != 2) throw UserError(ds.path().string() + ": /positions must be [token, axis]");
  std::vector<float> v(static_cast<std::size_t>(a.spec.elements()));
  if (a.spec.dtype == data::DType::f32) std::memcpy(v.data(), a.bytes.data(), a.bytes.size());
  else if (a.spec.dtype == data::DType::f64)
    for (std::size_t i = 0; i < v.size(); ++i) v[i] = static_cast<float>(reinterpret_cast<const double*>(a.bytes.data())[i]);
  else throw UserError(ds.path().string() + ": /positions must be float32 or float64");
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

class TorchTrainer final : public Trainer {
 public:
  void train(const config::Node& resolved, const TrainRequest& request) override {
    const TrainOptions opt = read_options(resolved);
    if (opt.device == "cuda" && !torch::cuda::is_available())
      throw UserError(resolved.at("train.device").mark().str() +
                      ": train.device is cuda, but this LibTorch has no CUDA device (Debian's libtorch is CPU-only)");
    const torch::Device device(opt.device == "cuda" ? torch::kCUDA : torch::kCPU);
    if (opt.threads > 0) at::set_num_threads(opt.threads);
    // Keeps freed tensor memory in the process: page faults on fresh multi-MB buffers otherwise double step time.
    models::tune_allocator();

    // Joined before anything else can fail, so that a rank which stops early stops the others at once.
    const std::unique_ptr<DataParallel> dp = DataParallel::join(launch_rank(), std::chrono::seconds(opt.dist_timeout));
    const int rank = dp ? dp->rank() : 0, ranks = dp ? dp->world_size() : 1;
    const bool lead = rank == 0;  // the one rank that evaluates and writes; the run folder must be shared by all

    const fs::path run = opt.out;
    if (lead) data::make_folder(run / "checkpoints");
    const fs::path last = run / "checkpoints" / "last.pt";
    if (fs::exists(run / "summary.json") && request.resume) {
      std::cerr << "loci: " << run.string() << " has finished already (summary.json); nothing to do\n";
      return;
    }
    if (!request.resume && (fs::exists(last) || fs::exists(run / "summary.json")))
      throw UserError(run.string() + ": holds a run already; pass --resume to continue it, or choose another `out`");
    if (lead) data::write_file_atomically(run / "config.yaml", config::to_yaml(resolved));

    const data::Dataset ds = data::Dataset::open(opt.data);
    const FeedPlan plan = plan_feed(ds, opt);
    const torch::Tensor positions = positions_of(ds);
    if (positions.size(0) != plan.tokens)
      throw UserError(ds.path().string() + ": /positions has " + std::to_string(positions.size(0)) +
                      " tokens but '" + plan.input + "' has " + std::to_string(plan.tokens));

    models::ModelOptions mopt = opt.model;
    mopt.encoder().in_channels(plan.channels);
    mopt.task(plan.task == Task::classification ? "classification" : "masked_regression");
    mopt.classification().classes(plan.classes);
    models::Model model = models::make_model(mopt, positions, opt.seed);
    model->to(device);
    auto optimizer = make_optimizer(opt, model->parameters());
    // Each batch's gradient as the sum of train.micro_batches parts, the parts side by side on the threads, one each.
    models::MicroBatches micro(models::MicroBatchOptions(opt.micro_batches, at::get_num_threads()));

    RunState state;
    if (request.resume && fs::exists(last)) {
      state = load_checkpoint(last, model, *optimizer);
      if (lead) std::cerr << "loci: resuming " << run.string() << " at epoch " << state.epoch << ", step " << state.step << "\n";
    }
    if (dp) {
      const std::int64_t lead_step = dp->broadcast(state.step, "the step to resume from", state.step);
      if (lead_step != state.step)
        throw UserError(run.string() + ": rank " + std::to_string(rank) + " would start at step " +
                        std::to_string(state.step) + " but rank 0 at step " + std::to_string(lead_step) +
                        "; every rank must see the same run folder (a shared file system)");
    }

    std::vector<std::string> eval_splits = opt.eval_splits.empty() ? ds.splits() : opt.eval_splits;
    for (const auto& s : eval_splits) ds.samples(s);  // an unknown split is an error now, not at the first eval
    const std::string attention_split =
        opt.save_attention ? attention_split_of(opt, ds, eval_splits, resolved.at("train.attention_split").mark().str())
                           : "";
    const std::int64_t per_epoch =
        data::BatchStream(ds, data::BatchStreamOptions(opt.train_split, plan.arrays(), opt.batch_size)).batches();
    const std::int64_t total_steps = opt.steps > 0 ? opt.steps : opt.epochs * per_epoch;
    const std::int64_t total_epochs = opt.steps > 0 ? (opt.steps + per_epoch - 1) / per_epoch : opt.epochs;

    const bool progress_shown = lead && opt.progress && request.progress;
    data::Progress progress(data::ProgressOptions("training", total_epochs).unit("epochs").enabled(progress_shown));
    progress.advance(state.epoch);
    bool stop = state.step >= total_steps;
    std::string status = "finished";
    while (!stop && state.epoch < total_epochs) {
      if (request.until_epoch > 0 && state.epoch >= request.until_epoch) {
        status = "paused";
        break;
      }
      const auto t0 = std::chrono::steady_clock::now();
      // Every random draw of this epoch (dropout, masks) follows from (seed, epoch): resuming re-creates it exactly.
      torch::manual_seed(sim::Rng::stream(opt.seed, "epoch", static_cast<std::uint64_t>(state.epoch))());
      const std::uint64_t dropout_seed = sim::Rng::stream(opt.seed, "dropout", static_cast<std::uint64_t>(state.epoch))();
      micro.reseed([&](int p) {
        return sim::Rng::stream(dropout_seed, "part", static_cast<std::uint64_t>(rank * micro.options().parts() + p))();
      });
      at::Generator mask_gen = models::make_generator(sim::Rng::stream(opt.seed, "mask", static_cast<std::uint64_t>(state.epoch))());
      model->train();
      // With several ranks, each reads its own part of every global batch of this epoch's order.
      data::BatchStream stream(ds, data::BatchStreamOptions(opt.train_split, plan.arrays(), opt.batch_size)
                                       .seed(opt.seed)
                                       .epoch(state.epoch)
                                       .rank(rank)
                                       .ranks(ranks));
      data::Batch batch;
      // The running loss and accuracy of this epoch, for the progress bar (the metrics files hold evaluations only).
      double loss_sum = 0;
      std::int64_t seen = 0, correct = 0;
      while (stream.next(batch)) {
        const double lr = learning_rate(opt.schedule, opt.lr, opt.min_lr, opt.warmup_steps, state.step, total_steps);
        for (auto& group : optimizer->param_groups()) group.options().set_lr(lr);
        // The mask of the whole global batch, cut to this rank's part: every rank draws what one process would.
        torch::Tensor mask;
        if (plan.task == Task::masked_regression)
          mask = model->sample_mask(batch.global_size, mask_gen).narrow(0, batch.offset, batch.size).to(device);
        optimizer->zero_grad();
        if (batch.size > 0) {  // empty only for a rank whose part of a final, tiny global batch is nothing
          const Feed f = Feed::from(batch, plan, stream);
          const torch::Tensor x = f.x.to(device);
          const torch::Tensor target_index = f.target.defined() ? f.target.to(device) : f.target;
          const torch::Tensor label = plan.task == Task::classification ? f.label.to(device) : torch::Tensor();
          std::vector<torch::Tensor> outputs(static_cast<std::size_t>(micro.options().parts()));
          const std::vector<double> losses = micro.backward(model->parameters(), [&](int p) -> torch::Tensor {
            const auto range = models::MicroBatches::range(p, micro.options().parts(), batch.size);
            const std::int64_t begin = range.first, end = range.second;
            if (begin == end) return {};
            auto part = [&](const torch::Tensor& t) { return t.defined() ? t.narrow(0, begin, end - begin) : t; };
            const models::ModelInput in{part(x), part(target_index), part(mask)};
            // autocast covers the forward pass only; backward follows the dtypes it recorded
            const AutocastScope autocast(opt.precision, device.type());
            const models::ModelOutput out = model->forward(in);
            outputs[static_cast<std::size_t>(p)] = out.output.detach();
            const double share = static_cast<double>(end - begin) / static_cast<double>(batch.size);
            return model->loss(out, in, plan.task == Task::classification ? part(label) : in.x).to(torch::kFloat) *
                   share;
          });
          double value = 0;
          for (const double l : losses) value += l;
          if (!std::isfinite(value))
            throw UserError(run.string() + ": loss is " + std::to_string(value) + " at epoch " +
                            std::to_string(state.epoch) + ", step " + std::to_string(state.step) +
                            " (lr " + std::to_string(lr) + "); training stopped" +
                            (fs::exists(last) ? "; the last good checkpoint is " + last.string() : ""));
          loss_sum += value * static_cast<double>(batch.size);
          seen += batch.size;
          if (plan.task == Task::classification && progress_shown)
            for (std::size_t p = 0; p < outputs.size(); ++p)
              if (outputs[p].defined()) {
                const auto [begin, end] = models::MicroBatches::range(static_cast<int>(p), micro.options().parts(), batch.size);
                correct += outputs[p].argmax(1).eq(label.narrow(0, begin, end - begin)).sum().item<std::int64_t>();
              }
        }
        if (dp)
          dp->all_reduce_gradients(model->parameters(), static_cast<double>(batch.size) / static_cast<double>(batch.global_size),
                                   state.step);
        if (opt.clip_grad_norm > 0) {
          const models::SingleThreadScope one;  // a norm summed per thread would make the bytes depend on threads
          torch::nn::utils::clip_grad_norm_(model->parameters(), opt.clip_grad_norm);
        }
        optimizer->step();
        if (++state.step >= total_steps) {
          stop = true;
          break;
        }
      }
      ++state.epoch;
      const double epoch_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      state.seconds += epoch_seconds;
      if (progress_shown && seen > 0) {
        char text[128];
        if (plan.task == Task::classification)
          std::snprintf(text, sizeof text, "loss %.4f  acc %.1f%%  %.0f samples/s", loss_sum / static_cast<double>(seen),
                        100.0 * static_cast<double>(correct) / static_cast<double>(seen),
                        static_cast<double>(seen) / epoch_seconds);
        else
          std::snprintf(text, sizeof text, "loss %.5f  %.0f samples/s", loss_sum / static_cast<double>(seen),
                        static_cast<double>(seen) / epoch_seconds);
        progress.set_status(text);
      }
      progress.advance();
      const bool last_epoch = stop || state.epoch >= total_epochs;
      if (state.epoch % opt.eval_every == 0 || last_epoch) {
        if (lead) {
          if (evaluate_all(model, ds, plan, opt, eval_splits, attention_split, state, micro)) {
            status = "early_stopped";
            stop = true;
          }
          write_metrics(run, state.rows, plan.condition_names);
          if (!attention_split.empty())
            write_attention_file(run, state.pe_history, attention_split, ds.samples(attention_split));
          write_pe_file(run, state.pe_history, positions, mopt.encoder().pe().type(),
                        mopt.encoder().pe().init() ? mopt.encoder().pe().init()->std() : 0.0, mopt.encoder().pe().placement());
          save_checkpoint(last, model, *optimizer, state, plan.condition_names);
        }
        if (dp) stop = dp->broadcast(stop, "rank 0's stop decision", state.step) != 0;  // early stopping is rank 0's
      } else if (lead && request.until_epoch > 0 && state.epoch >= request.until_epoch) {
        save_checkpoint(last, model, *optimizer, state, plan.condition_names);
      }
    }
    progress.finish();
    if (lead && status != "paused") write_summary(run, opt, mopt, state, status, per_epoch);
  }

 private:
  // Evaluates every split, records rows and a PE snapshot; true when early stopping says stop.
  bool evaluate_all(models::Model& model, const data::Dataset& ds, const FeedPlan& plan, const TrainOptions& opt,
                    const std::vector<std::string>& splits, const std::string& attention_split, RunState& state,
                    models::MicroBatches& micro) const {
    std::string line = "loci: epoch " + std::to_string(state.epoch) + " step " + std::to_string(state.step) + ":";
    const double norm = pe_norm(model);
    const double lr = learning_rate(opt.schedule, opt.lr, opt.min_lr, opt.warmup_steps, state.step,
                                    opt.steps > 0 ? opt.steps : state.step);
    bool stop = false;
    for (const auto& split : splits) {
      MetricsRow row{state.epoch, state.step, state.seconds, lr, norm, evaluate(model, ds, split, plan, opt.eval_batch_size, opt.seed, micro)};
      line += " | " + describe(row.metrics);
      if (opt.early_stop_patience > 0 && split == opt.early_stop_split) {
        if (row.metrics.loss < state.best_loss - opt.early_stop_min_delta) {
          state.best_loss = row.metrics.loss;
          state.evals_without_improvement = 0;
        } else if (++state.evals_without_improvement >= opt.early_stop_patience) {
          stop = true;
        }
      }
      state.rows.push_back(std::move(row));
    }
    PeSnapshot snap{state.epoch, state.step, {}};
    for (const auto& m : model->pe_matrices()) snap.matrices.push_back(m.defined() ? m.to(torch::kCPU).clone() : m);
    if (!attention_split.empty())
      snap.attention = mean_attention(model, ds, attention_split, plan, opt.eval_batch_size, opt.seed, state.epoch);
    state.pe_history.push_back(std::move(snap));
    if (opt.progress) std::cerr << line << "\n";
    return stop;
  }

  void write_summary(const fs::path& run, const TrainOptions& opt, const models::ModelOptions& mopt,
                     const RunState& state, const std::string& status, std::int64_t per_epoch) const {
    nlohmann::ordered_json j;
    j["status"] = status;
    j["epochs"] = state.epoch;
    j["steps"] = state.step;
    j["train_seconds"] = state.seconds;
    j["samples_per_second"] = state.seconds > 0 ? static_cast<double>(state.step * opt.batch_size) / state.seconds : 0.0;
    j["seed"] = opt.seed;
    j["precision"] = opt.precision;
    j["micro_batches"] = opt.micro_batches;
    j["blas"] = models::blas_description();  // the kernel decides speed and the last bits of every product
    j["data"] = opt.data;
    j["pe"] = {{"type", mopt.encoder().pe().type()},
               {"placement", mopt.encoder().pe().placement()},
               {"init", mopt.encoder().pe().init() ? mopt.encoder().pe().init()->name() : ""},
               {"init_std", mopt.encoder().pe().init() ? mopt.encoder().pe().init()->std() : 0.0}};
    j["batches_per_epoch"] = per_epoch;
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
    data::write_file_atomically(run / "summary.json", j.dump(2) + "\n");
  }
};

}  // namespace

}  // namespace loci::torch_trainer

LOCI_PLUGIN(LOCI_PLUGIN_TRAINER, "torch_trainer", "0.1.0",
            "LibTorch trainer: the paper's transformer with any positional encoding, LST classification or masked regression",
            loci::torch_trainer::schema_text(), loci::torch_trainer::TorchTrainer)
