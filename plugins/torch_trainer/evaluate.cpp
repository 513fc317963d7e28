#include "evaluate.hpp"

#include "models/dropout.hpp"
#include "models/init/init_registry.hpp"
#include "sim/random/stream.hpp"

namespace loci::torch_trainer {

TokenMeans token_means(const datasets::Dataset& ds, const std::string& train_split, const FeedPlan& plan) {
  TokenMeans m;
  if (plan.task != Task::masked_regression) return m;
  datasets::BatchStream stream(ds, plan.stream_options(train_split, 512).shuffle(false));
  torch::Tensor sum = torch::zeros({plan.tokens}, torch::kFloat64);
  std::int64_t samples = 0;
  datasets::Batch batch;
  while (stream.next(batch)) {
    const Feed f = Feed::from(batch, plan, stream);
    sum += f.x.to(torch::kFloat64).sum(std::vector<int64_t>{0, 2});
    samples += batch.size;
  }
  if (samples == 0) return m;
  const torch::Tensor mean = sum / static_cast<double>(samples * plan.channels);
  m.per_token = mean.to(torch::kFloat32);
  m.global = mean.mean().item<double>();
  return m;
}

namespace {

// What an evaluation sums over its batches.
struct EvalTally {
  explicit EvalTally(std::size_t conditions) : right(conditions, 0), seen(conditions, 0) {}
  std::vector<std::int64_t> right, seen;  // per condition
  std::int64_t samples = 0, correct = 0;
  double loss_sum = 0, global_sum = 0, token_sum = 0;

  void add_hits(const torch::Tensor& hit, const torch::Tensor& condition) {
    correct += hit.sum().item<std::int64_t>();
    if (!condition.defined()) return;
    const auto* c = condition.data_ptr<std::int64_t>();
    const auto* h = hit.data_ptr<bool>();
    for (std::int64_t i = 0; i < hit.size(0); ++i) {
      if (c[i] < 0 || static_cast<std::size_t>(c[i]) >= seen.size()) continue;
      ++seen[static_cast<std::size_t>(c[i])];
      right[static_cast<std::size_t>(c[i])] += h[i] ? 1 : 0;
    }
  }

  // The baselines on the same masked values, weighted by samples as the loss is.
  void add_mean_baselines(const Feed& f, const torch::Tensor& mask, const TokenMeans& means, std::int64_t n) {
    const torch::Tensor global = torch::full_like(f.x, means.global);
    const torch::Tensor token = means.per_token.view({1, -1, 1}).expand_as(f.x);
    global_sum += models::masked_mse(global, f.x, mask).item<double>() * static_cast<double>(n);
    token_sum += models::masked_mse(token, f.x, mask).item<double>() * static_cast<double>(n);
  }
};

// What stays the same over one split's evaluation.
struct EvalPass {
  models::Model& model;
  const FeedPlan& plan;
  models::MicroBatches& micro;
  std::uint64_t seed;
  const std::string& split;
  double noise_std;
};

// One batch's forward passes, its parts side by side on the micro-batches' threads; returns the parts' outputs
// (undefined for an empty part) and adds their summed losses to the tally.
std::vector<torch::Tensor> forward_parts(const EvalPass& e, const Feed& f, const torch::Tensor& mask, std::int64_t size,
                                         std::uint64_t index, EvalTally& tally) {
  const int parts = e.micro.options().parts();
  auto stream_of = [&](const std::string& purpose, int p) {
    return sim::Rng::stream(e.seed, purpose,
                            index * static_cast<std::uint64_t>(parts) + static_cast<std::uint64_t>(p))();
  };
  e.micro.reseed([&](int p) { return stream_of("eval-dropout:" + e.split, p); });
  std::vector<torch::Tensor> outputs(static_cast<std::size_t>(parts));
  std::vector<double> losses(static_cast<std::size_t>(parts), 0.0);
  e.micro.run([&](int p) {
    const torch::NoGradGuard no_grad_here;  // grad mode is per thread
    const auto r = models::MicroBatches::range(p, parts, size);
    if (r.first == r.second) return;
    auto part = [&](const torch::Tensor& t) { return t.defined() ? t.narrow(0, r.first, r.second - r.first) : t; };
    models::ModelInput in{part(f.x), part(f.target), part(mask)};
    if (e.noise_std > 0) {
      at::Generator noise_gen =
          models::make_generator(stream_of("eval-noise:" + e.split + ":" + std::to_string(e.noise_std), p));
      const auto d = e.model->options().encoder().d_model();
      in.embedding_noise = at::normal(0.0, e.noise_std, {in.x.size(0), in.x.size(1), d}, noise_gen);
    }
    const auto out = e.model->forward(in);
    outputs[static_cast<std::size_t>(p)] = out.output;
    const auto target = e.plan.task != Task::classification ? in.x : f.dense.defined() ? part(f.dense) : part(f.label);
    const auto loss = e.model->loss(out, in, target);
    losses[static_cast<std::size_t>(p)] = loss.item<double>() * static_cast<double>(r.second - r.first);
  });
  for (const double l : losses) tally.loss_sum += l;
  return outputs;
}

SplitMetrics metrics_of(const EvalTally& t, const EvalPass& e, double mask_ratio, const TokenMeans& means) {
  SplitMetrics m;
  m.split = e.split;
  m.samples = t.samples;
  if (m.samples == 0) return m;
  const auto n = static_cast<double>(m.samples);
  m.loss = t.loss_sum / n;
  if (e.plan.task == Task::classification) {
    m.accuracy = static_cast<double>(t.correct) / n;
    if (!e.plan.condition.empty())
      for (std::size_t c = 0; c < t.seen.size(); ++c)
        m.accuracy_by_condition.push_back(t.seen[c] ? static_cast<double>(t.right[c]) / static_cast<double>(t.seen[c])
                                                    : -1);
    return m;
  }
  m.mse = m.loss;
  m.mask_ratio = mask_ratio >= 0 ? mask_ratio : e.model->masked_regression->options().mask_ratio_eval();
  if (means.defined()) {
    m.mse_global_mean = t.global_sum / n;
    m.mse_token_mean = t.token_sum / n;
    if (m.mse_global_mean > 0) m.r2_global_mean = 1.0 - m.mse / m.mse_global_mean;
    if (m.mse_token_mean > 0) m.r2_token_mean = 1.0 - m.mse / m.mse_token_mean;
  }
  return m;
}

}  // namespace

SplitMetrics evaluate(models::Model& model, const datasets::Dataset& ds, const std::string& split, const FeedPlan& plan,
                      std::int64_t batch_size, std::uint64_t seed, models::MicroBatches& micro, double mask_ratio,
                      const TokenMeans& means, double noise_std) {
  torch::NoGradGuard no_grad;
  const bool was_training = model->is_training();
  model->eval();
  const EvalPass e{model, plan, micro, seed, split, noise_std};
  datasets::BatchStream stream(ds, plan.stream_options(split, batch_size).shuffle(false));
  at::Generator mask_gen = models::make_generator(sim::Rng::stream(seed, "eval-mask:" + split, 0)());
  EvalTally tally(std::max<std::size_t>(plan.condition_names.size(), 3));
  datasets::Batch batch;
  for (std::uint64_t index = 0; stream.next(batch); ++index) {
    const Feed f = Feed::from(batch, plan, stream);
    torch::Tensor mask;
    if (plan.task == Task::masked_regression) {
      mask = mask_ratio >= 0 ? models::sample_token_mask(batch.size, plan.tokens, mask_ratio, mask_gen)
                             : model->sample_mask(batch.size, mask_gen);
      if (means.defined()) tally.add_mean_baselines(f, mask, means, batch.size);
    }
    if (f.counted.defined()) mask = f.counted;  // the tokens a dense_blank loss counts
    const std::vector<torch::Tensor> outputs = forward_parts(e, f, mask, batch.size, index, tally);
    tally.samples += batch.size;
    if (plan.task == Task::classification) {
      std::vector<torch::Tensor> present;
      for (const auto& o : outputs)
        if (o.defined()) present.push_back(o);
      tally.add_hits(torch::cat(present).argmax(1).eq(f.label), f.condition);
    }
  }
  if (was_training) model->train();
  return metrics_of(tally, e, mask_ratio, means);
}

double token_embedding_norm(models::Model& model, const datasets::Dataset& ds, const std::string& split,
                            const FeedPlan& plan, std::int64_t batch_size) {
  torch::NoGradGuard no_grad;
  const models::SingleThreadScope one;
  datasets::BatchStream stream(ds, plan.stream_options(split, batch_size).shuffle(false));
  datasets::Batch batch;
  if (!stream.next(batch) || batch.size == 0) return -1;
  const Feed f = Feed::from(batch, plan, stream);
  const torch::Tensor h = model->encoder->embed(f.x).to(torch::kFloat64);  // [B, T, d]
  return h.norm(2, {-1}).mean().item<double>();
}

std::vector<torch::Tensor> mean_attention(models::Model& model, const datasets::Dataset& ds, const std::string& split,
                                          const FeedPlan& plan, std::int64_t batch_size, std::uint64_t seed,
                                          std::int64_t epoch) {
  torch::NoGradGuard no_grad;
  const models::SingleThreadScope one;
  const bool was_training = model->is_training();
  model->eval();
  at::Generator dropout_gen =
      models::make_generator(sim::Rng::stream(seed, "attention-dropout:" + split, static_cast<std::uint64_t>(epoch))());
  const models::DropoutGeneratorScope dropout_scope(&dropout_gen);
  at::Generator mask_gen = models::make_generator(sim::Rng::stream(seed, "eval-mask:" + split, 0)());

  datasets::BatchStream stream(ds, plan.stream_options(split, batch_size).shuffle(false));
  std::vector<torch::Tensor> sums;
  std::int64_t samples = 0;
  datasets::Batch batch;
  while (stream.next(batch)) {
    const Feed f = Feed::from(batch, plan, stream);
    models::ModelInput in{f.x, f.target, {}};
    if (plan.task == Task::masked_regression) in.mask = model->sample_mask(batch.size, mask_gen);
    const auto maps = model->attention_maps(in);  // each [B, H, N, N]
    if (sums.empty())
      for (const auto& m : maps) sums.push_back(torch::zeros({m.size(1), m.size(2), m.size(3)}, torch::kFloat64));
    for (std::size_t b = 0; b < maps.size(); ++b) sums[b] += maps[b].to(torch::kFloat64).sum(0);
    samples += batch.size;
  }
  if (was_training) model->train();
  for (auto& s : sums) s = (s / static_cast<double>(std::max<std::int64_t>(samples, 1))).to(torch::kFloat32);
  return sums;
}

}  // namespace loci::torch_trainer
