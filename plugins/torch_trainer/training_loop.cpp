#include "training_loop.hpp"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iostream>

#include "core/config/options.hpp"
#include "core/error.hpp"
#include "datasets/atomic_file.hpp"
#include "datasets/checked_file.hpp"
#include "datasets/progress.hpp"
#include "lr_schedule.hpp"
#include "models/precision_scope.hpp"
#include "optimizer.hpp"
#include "pause_signal.hpp"
#include "run_identity.hpp"
#include "run_outputs.hpp"
#include "sim/random/stream.hpp"

namespace loci::torch_trainer {

namespace fs = std::filesystem;

namespace {

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

std::string describe(const SplitMetrics& m) {
  char buf[128];
  if (m.accuracy >= 0)
    std::snprintf(buf, sizeof buf, "%s acc %.3f loss %.4f", m.split.c_str(), m.accuracy, m.loss);
  else
    std::snprintf(buf, sizeof buf, "%s mse %.5f", m.split.c_str(), m.mse);
  return buf;
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

// Every PE table (and, when saved, each block's mean attention) as it is now.
PeSnapshot snapshot(models::Model& model, const datasets::Dataset& ds, const FeedPlan& plan, const TrainOptions& opt,
                    const std::string& attention_split, const RunState& state) {
  PeSnapshot snap{state.epoch, state.step, {}, {}, {}};
  for (const auto& m : model->pe_matrices()) snap.matrices.push_back(m.defined() ? m.to(torch::kCPU).clone() : m);
  for (const auto& l : model->position_logits()) snap.position_logits.push_back(l.to(torch::kCPU).clone());
  if (!attention_split.empty())
    snap.attention = mean_attention(model, ds, attention_split, plan, opt.eval_batch_size, opt.seed, state.epoch);
  return snap;
}

// Evaluates every split, records rows and a PE snapshot; true when early stopping says stop.
bool evaluate_all(models::Model& model, const datasets::Dataset& ds, const FeedPlan& plan, const TrainOptions& opt,
                  const std::vector<std::string>& splits, const std::string& attention_split, RunState& state,
                  models::MicroBatches& micro, const TokenMeans& means, bool say) {
  std::string line = "loci: epoch " + std::to_string(state.epoch) + " step " + std::to_string(state.step) + ":";
  const double norm = pe_norm(model);
  const double embedding = token_embedding_norm(model, ds, opt.train_split, plan, opt.eval_batch_size);
  const double lr = learning_rate(opt.schedule, opt.lr, opt.min_lr, opt.warmup_steps, state.step,
                                  opt.steps > 0 ? opt.steps : state.step);
  bool stop = false;
  for (const auto& split : splits) {
    MetricsRow row{state.epoch,
                   state.step,
                   state.seconds,
                   lr,
                   norm,
                   embedding,
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
      MetricsRow extra{
          state.epoch,
          state.step,
          state.seconds,
          lr,
          norm,
          embedding,
          same ? at_default : evaluate(model, ds, split, plan, opt.eval_batch_size, opt.seed, micro, ratio, means)};
      extra.metrics.split = split + "@" + config::default_text(ratio);
      state.rows.push_back(std::move(extra));
    }
  }
  state.pe_history.push_back(snapshot(model, ds, plan, opt, attention_split, state));
  if (say) std::cerr << line << "\n";
  return stop;
}

// One optimizer step on one global batch: this rank's part as micro-batches, gradients averaged over ranks.
void train_step(Session& s, const datasets::BatchStream& stream, const datasets::Batch& batch, at::Generator& mask_gen,
                EpochTally& tally) {
  const TrainOptions& opt = s.opt;
  const double lr =
      learning_rate(opt.schedule, opt.lr, opt.min_lr, opt.warmup_steps, s.schedule.state.step, s.schedule.total_steps);
  set_learning_rate(*s.learner.optimizer, opt, lr);
  // The mask of the whole global batch, cut to this rank's part: every rank draws what one process would.
  torch::Tensor mask;
  if (s.data.plan.task == Task::masked_regression)
    mask = s.learner.model->sample_mask(batch.global_size, mask_gen)
               .narrow(0, batch.offset, batch.size)
               .to(s.process.device);
  s.learner.optimizer->zero_grad();
  if (batch.size > 0) {  // empty only for a rank whose part of a final, tiny global batch is nothing
    const Feed f = Feed::from(batch, s.data.plan, stream);
    const torch::Tensor x = f.x.to(s.process.device);
    const torch::Tensor target_index = f.target.defined() ? f.target.to(s.process.device) : f.target;
    const torch::Tensor label =
        s.data.plan.task == Task::classification ? f.label.to(s.process.device) : torch::Tensor();
    // A dense objective's per-token classes are what the loss reads; the tokens it counts ride in the mask.
    const torch::Tensor dense = f.dense.defined() ? f.dense.to(s.process.device) : f.dense;
    if (f.counted.defined()) mask = f.counted.to(s.process.device);
    const int parts = s.learner.micro->options().parts();
    std::vector<torch::Tensor> outputs(static_cast<std::size_t>(parts));
    const std::vector<double> losses =
        s.learner.micro->backward(s.learner.model->parameters(), [&](int p) -> torch::Tensor {
          const auto [begin, end] = models::MicroBatches::range(p, parts, batch.size);
          if (begin == end) return {};
          auto part = [&, b = begin, e = end](const torch::Tensor& t) {
            return t.defined() ? t.narrow(0, b, e - b) : t;
          };
          const models::ModelInput in{part(x), part(target_index), part(mask)};
          // the forward pass only: backward follows what forward recorded (autocast's dtypes, the fused layers' choice)
          const models::PrecisionScope precision(opt.precision, opt.bf16_products, s.process.device.type());
          const models::ModelOutput out = s.learner.model->forward(in);
          outputs[static_cast<std::size_t>(p)] = out.output.detach();
          const double share = static_cast<double>(end - begin) / static_cast<double>(batch.size);
          const torch::Tensor target = s.data.plan.task != Task::classification ? in.x
                                       : dense.defined()                        ? part(dense)
                                                                                : part(label);
          return s.learner.model->loss(out, in, target, opt.label_smoothing).to(torch::kFloat) * share;
        });
    double value = 0;
    for (const double l : losses) value += l;
    if (!std::isfinite(value))
      throw UserError(s.folder.run.string() + ": loss is " + std::to_string(value) + " at epoch " +
                      std::to_string(s.schedule.state.epoch) + ", step " + std::to_string(s.schedule.state.step) +
                      " (lr " + std::to_string(lr) + "); training stopped" +
                      (fs::exists(s.folder.last) ? "; the last good checkpoint is " + s.folder.last.string() : ""));
    tally.loss_sum += value * static_cast<double>(batch.size);
    tally.seen += batch.size;
    if (s.data.plan.task == Task::classification && s.process.progress_shown)
      for (std::size_t p = 0; p < outputs.size(); ++p)
        if (outputs[p].defined()) {
          const auto [begin, end] = models::MicroBatches::range(static_cast<int>(p), parts, batch.size);
          tally.correct += outputs[p].argmax(1).eq(label.narrow(0, begin, end - begin)).sum().item<std::int64_t>();
        }
  }
  if (s.process.dp)
    s.process.dp->all_reduce_gradients(s.learner.model->parameters(),
                                       static_cast<double>(batch.size) / static_cast<double>(batch.global_size),
                                       s.schedule.state.step);
  if (opt.clip_grad_norm > 0) {
    const models::SingleThreadScope one;  // a norm summed per thread would make the bytes depend on threads
    torch::nn::utils::clip_grad_norm_(s.learner.model->parameters(), opt.clip_grad_norm);
  }
  s.learner.optimizer->step();
  s.learner.model->after_optimizer_step();
}

// One pass over this epoch's batches (this rank's part of each); sets `stop` when train.steps is reached.
EpochTally run_epoch(Session& s, bool& stop) {
  const auto t0 = std::chrono::steady_clock::now();
  const auto epoch = static_cast<std::uint64_t>(s.schedule.state.epoch);
  // Every random draw of this epoch (dropout, masks) follows from (seed, epoch): resuming re-creates it exactly.
  torch::manual_seed(sim::Rng::stream(s.opt.seed, "epoch", epoch)());
  const std::uint64_t dropout_seed = sim::Rng::stream(s.opt.seed, "dropout", epoch)();
  s.learner.micro->reseed([&](int p) {
    return sim::Rng::stream(dropout_seed, "part",
                            static_cast<std::uint64_t>(s.process.rank * s.learner.micro->options().parts() + p))();
  });
  at::Generator mask_gen = models::make_generator(sim::Rng::stream(s.opt.seed, "mask", epoch)());
  s.learner.model->train();
  // With several ranks, each reads its own part of every global batch of this epoch's order.
  datasets::BatchStream stream(*s.data.ds, s.data.plan.stream_options(s.opt.train_split, s.opt.batch_size)
                                               .seed(s.opt.seed)
                                               .epoch(s.schedule.state.epoch)
                                               .rank(s.process.rank)
                                               .ranks(s.process.ranks));
  datasets::Batch batch;
  EpochTally tally;
  while (stream.next(batch)) {
    train_step(s, stream, batch, mask_gen, tally);
    if (++s.schedule.state.step >= s.schedule.total_steps) {
      stop = true;
      break;
    }
  }
  tally.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return tally;
}

// train.checkpoint.best: whether this evaluation's loss on that split is the lowest so far (recorded in the state).
bool improves_best(Session& s) {
  if (s.opt.checkpoint_best.empty()) return false;
  for (const auto& row : s.schedule.state.rows)
    if (row.epoch == s.schedule.state.epoch && row.metrics.split == s.opt.checkpoint_best &&
        row.metrics.loss < s.schedule.state.best_checkpoint_loss) {
      s.schedule.state.best_checkpoint_loss = row.metrics.loss;
      return true;
    }
  return false;
}

// Copies of last.pt (just written): best.pt, and epoch_<E>.pt every train.checkpoint.every epochs.
void keep_checkpoints(const Session& s, bool best) {
  const bool every = s.opt.checkpoint_every > 0 && s.schedule.state.epoch % s.opt.checkpoint_every == 0;
  if (!best && !every) return;
  std::ifstream in(s.folder.last, std::ios::binary);
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const fs::path dir = s.folder.run / "checkpoints";
  if (best) datasets::write_checked(dir / "best.pt", bytes);
  if (every) datasets::write_checked(dir / ("epoch_" + std::to_string(s.schedule.state.epoch) + ".pt"), bytes);
}

// A step whose loss was finite can still leave non-finite weights: their evaluation is the first to show it, and
// such weights must never become the checkpoint a divergence message calls the last good one.
void refuse_diverged_evaluation(const Session& s) {
  for (const auto& row : s.schedule.state.rows)
    if (row.epoch == s.schedule.state.epoch && !std::isfinite(row.metrics.loss))
      throw UserError(s.folder.run.string() + ": loss is " + std::to_string(row.metrics.loss) + " on the " +
                      row.metrics.split + " evaluation at epoch " + std::to_string(s.schedule.state.epoch) +
                      " (the weights diverged); training stopped" +
                      (fs::exists(s.folder.last) ? "; the last good checkpoint is " + s.folder.last.string() : ""));
}

// Evaluates, then rewrites every output file and the checkpoint; true when early stopping says stop.
bool evaluate_and_save(Session& s) {
  const bool stop =
      evaluate_all(s.learner.model, *s.data.ds, s.data.plan, s.opt, s.data.eval_splits, s.data.attention_split,
                   s.schedule.state, *s.learner.micro, s.data.means, s.process.say);
  refuse_diverged_evaluation(s);
  write_metrics(s.folder.run, s.schedule.state.rows, s.data.plan.condition_names);
  if (!s.data.attention_split.empty())
    write_attention_file(s.folder.run, s.schedule.state.pe_history, s.data.attention_split,
                         s.data.ds->samples(s.data.attention_split));
  const auto& pe = s.learner.mopt.encoder().pe();
  write_pe_file(s.folder.run, s.schedule.state.pe_history, s.data.positions, describe_pe(pe, s.learner.model));
  const bool best = improves_best(s);
  save_checkpoint(s.folder.last, s.learner.model, *s.learner.optimizer, s.schedule.state, s.data.plan.condition_names,
                  lasting_keys(s.folder.identity));
  keep_checkpoints(s, best);
  return stop;
}

}  // namespace

void record_initial_pe(Session& s) {
  if (!s.process.lead || s.schedule.state.epoch != 0 || !s.schedule.state.pe_history.empty()) return;
  s.schedule.state.pe_history.push_back(
      snapshot(s.learner.model, *s.data.ds, s.data.plan, s.opt, s.data.attention_split, s.schedule.state));
}

std::string run_epochs(Session& s, const plugins::TrainRequest& request) {
  datasets::Progress progress(
      datasets::ProgressOptions("training", s.schedule.total_epochs).unit("epochs").enabled(s.process.progress_shown));
  progress.advance(s.schedule.state.epoch);
  bool stop = s.schedule.state.step >= s.schedule.total_steps;
  std::string status = "finished";
  while (!stop && s.schedule.state.epoch < s.schedule.total_epochs) {
    if (request.until_epoch > 0 && s.schedule.state.epoch >= request.until_epoch) {
      status = "paused";
      break;
    }
    const EpochTally tally = run_epoch(s, stop);
    ++s.schedule.state.epoch;
    s.schedule.state.seconds += tally.seconds;
    if (s.process.progress_shown && tally.seen > 0) progress.set_status(tally.describe(s.data.plan.task));
    progress.advance();
    const bool last_epoch = stop || s.schedule.state.epoch >= s.schedule.total_epochs;
    if (s.schedule.state.epoch % s.opt.eval_every == 0 || last_epoch) {
      if (s.process.lead && evaluate_and_save(s)) {
        status = "early_stopped";
        stop = true;
      }
      // Early stopping is rank 0's; the others wait out its evaluation under a bound of its own.
      if (s.process.dp)
        stop = s.process.dp->broadcast(stop, "rank 0's stop decision", s.schedule.state.step,
                                       std::chrono::seconds(s.opt.dist_eval_timeout)) != 0;
    } else if (s.process.lead && ((request.until_epoch > 0 && s.schedule.state.epoch >= request.until_epoch) ||
                                  (!s.process.dp && !last_epoch && PauseSignal::requested()))) {
      save_checkpoint(s.folder.last, s.learner.model, *s.learner.optimizer, s.schedule.state,
                      s.data.plan.condition_names, lasting_keys(s.folder.identity));
    }
    // Asked to stop (SIGUSR1, a scheduler's warning): the epoch is done and checkpointed, --resume goes on.
    // A data-parallel run keeps going: its ranks would have to agree on the epoch first.
    if (!stop && !s.process.dp && !last_epoch && PauseSignal::requested()) {
      if (s.process.say)
        std::cerr << "loci: paused at epoch " << s.schedule.state.epoch
                  << " on SIGUSR1, checkpointed; --resume continues\n";
      status = "paused";
      break;
    }
  }
  progress.finish();
  return status;
}

}  // namespace loci::torch_trainer
