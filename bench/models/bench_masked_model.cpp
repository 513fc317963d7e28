// Training-step throughput of the masked-regression model of Experiments 2 and 3 (configs/network_train.yaml,
// parcels_train.yaml: 100 tokens of 50 values, d 64, 4 post-LN blocks, 1 head, MLP 256, learned PE per block,
// half the tokens replaced by the mask embedding, MSE on them, AdamW lr 1e-3, batch 32), as the trainer runs it.
// Prints RESULT lines that run_masked.sh sets beside bench/reference/masked_model.py.
//
// Usage: bench_masked_model [--threads 1,2] [--steps 10] [--reps 5] [--warmup 3] [--parts N] [--bf16 | --bf16-fused]
//                           [--tokens 100] [--breakdown] [--profile TRACE]
// --parts: train.micro_batches (default: the thread count, one part per thread, as a run on that many cores would
// set it); 1 is one pass on one thread whatever --threads says.
// --breakdown adds the CPU time of the attention products and softmax against the rest of one forward pass.

#include "models/allocator.hpp"
#include "models/blas_info.hpp"
#include "models/init/init_registry.hpp"
#include "models/kernels/fused_adamw.hpp"
#include "models/micro_batches.hpp"
#include "models/model.hpp"
#include "models/precision_scope.hpp"
#include "step_precision.hpp"
#include "step_timing.hpp"

#include <ATen/Parallel.h>
#include <torch/csrc/autograd/profiler_legacy.h>

#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <string>
#include <vector>

namespace {

constexpr int64_t kBatch = 32, kWindow = 50, kD = 64, kBlocks = 4, kHidden = 256;

struct Args : loci::bench::StepRounds {  // parts 0: one per thread
  int64_t tokens = 100;
  loci::bench::StepPrecision step;  // --bf16, --bf16-fused
  bool breakdown = false;
  std::string profile;  // a Chrome trace of a few steps, per ATen operation
};

Args parse(int argc, char** argv) {
  Args a;
  loci::bench::parse_arguments(argc, argv, [&](const std::string& arg, auto& next) {
    if (a.parse_round(arg, next) || a.step.parse(arg)) return true;
    if (arg == "--tokens")
      a.tokens = std::stoll(next());
    else if (arg == "--breakdown")
      a.breakdown = true;
    else if (arg == "--profile")
      a.profile = next();
    else
      return false;
    return true;
  });
  if (a.tokens < 2) throw std::invalid_argument("--tokens must be >= 2");
  return a;
}

// Matrix-product FLOPs (2 per multiply-add) of a forward pass; backward costs twice that.
double step_flops(int64_t tokens) {
  const double n = static_cast<double>(kBatch * tokens);
  const double attention = 2.0 * 2.0 * kBatch * tokens * tokens * kD;  // scores and weights x values
  const double per_token = 2.0 * kD * 3 * kD + 2.0 * kD * kD + 2 * 2.0 * kD * kHidden;
  const double forward = 2 * n * kWindow * kD + kBlocks * (n * per_token + attention) + 2 * n * kD * kWindow;
  return 3 * forward;
}

double attention_share(int64_t tokens) {
  const double attention = 2.0 * 2.0 * kBatch * tokens * tokens * kD * kBlocks * 3;
  return attention / step_flops(tokens);
}

}  // namespace

int main(int argc, char** argv) try {
  const Args args = parse(argc, argv);
  if (!loci::models::tune_allocator()) std::fprintf(stderr, "bench_masked_model: malloc not tuned\n");
  torch::manual_seed(0);
  const auto x = torch::randn({kBatch, args.tokens, kWindow});
  const auto positions = torch::rand({args.tokens, 2});

  std::printf(
      "model: batch %lld, T %lld, window %lld, d %lld, %lld blocks, learned PE per block, mask 0.5, AdamW "
      "lr 1e-3%s\n",
      static_cast<long long>(kBatch), static_cast<long long>(args.tokens), static_cast<long long>(kWindow),
      static_cast<long long>(kD), static_cast<long long>(kBlocks), args.step.header().c_str());
  const char* core = std::getenv("OPENBLAS_CORETYPE");
  std::printf("blas: %s (OPENBLAS_CORETYPE %s)\n", loci::models::blas_description().c_str(), core ? core : "not set");
  std::printf("FLOPs per step: %.3g, of which attention (scores, weights x values) %.0f%%\n", step_flops(args.tokens),
              100 * attention_share(args.tokens));

  for (int threads : args.threads) {
    at::set_num_threads(threads);
    const int parts = args.parts > 0 ? args.parts : threads;
    loci::models::ModelOptions options;
    options.task(loci::models::Task::masked_regression);
    options.encoder().in_channels(kWindow).d_model(kD).blocks(kBlocks).heads(1);
    options.encoder().pe().init(loci::models::InitOptions("normal").std(0.2));
    auto model = loci::models::make_model(options, positions, 0);
    model->train();
    loci::models::FusedAdamW opt(model->parameters(), torch::optim::AdamWOptions(1e-3).weight_decay(0.0));
    at::Generator mask_gen = loci::models::make_generator(1);
    loci::models::MicroBatches micro(loci::models::MicroBatchOptions(parts, threads));
    // The trainer's step (plugins/torch_trainer, train_step): one mask for the batch, each part's masked MSE
    // weighted by its share, the parts side by side on the threads.
    auto step = [&] {
      const auto mask = model->sample_mask(kBatch, mask_gen);
      opt.zero_grad();
      micro.backward(model->parameters(), [&](int p) {
        const auto [begin, end] = loci::models::MicroBatches::range(p, parts, kBatch);
        const loci::models::ModelInput in{x.narrow(0, begin, end - begin), {}, mask.narrow(0, begin, end - begin), {}};
        loci::models::ModelOutput out;
        {
          const loci::models::PrecisionScope precision(args.step.precision, args.step.bf16_products, torch::kCPU);
          out = model->forward(in);
        }
        return model->loss(out, in, in.x).to(torch::kFloat) * (static_cast<double>(end - begin) / kBatch);
      });
      opt.step();
    };
    const auto t = loci::bench::time_per_call(step, args.warmup, args.steps, args.reps);
    if (!args.profile.empty()) {
      const torch::autograd::profiler::RecordProfile record(args.profile + "." + std::to_string(threads));
      for (int i = 0; i < args.steps; ++i) step();
    }
    std::printf(
        "RESULT impl=cpp%s threads=%d parts=%d ms_per_step=%.2f samples_per_s=%.0f cpu_ms_per_step=%.2f "
        "gflops=%.1f\n",
        args.step.suffix(), threads, parts, t.wall * 1e3, kBatch / t.wall, t.cpu * 1e3,
        step_flops(args.tokens) / t.wall / 1e9);
    if (args.breakdown) {
      const auto q = torch::randn({kBatch, 1, args.tokens, kD});
      const auto attention = loci::bench::time_per_call(
          [&] { torch::softmax(torch::matmul(q, q.transpose(-2, -1)), -1).matmul(q); }, 2, args.steps);
      const auto forward = loci::bench::time_per_call(
          [&] {
            torch::NoGradGuard no_grad;
            model->forward({x, {}, model->sample_mask(kBatch, mask_gen), {}});
          },
          2, args.steps);
      std::printf("BREAKDOWN threads=%d cpu_ms forward=%.2f attention_core_x%lld=%.2f\n", threads, forward.cpu * 1e3,
                  static_cast<long long>(kBlocks), attention.cpu * 1e3 * kBlocks);
    }
    std::fflush(stdout);
  }
  return 0;
} catch (const std::exception& e) {
  std::fprintf(stderr, "bench_masked_model: %s\n", e.what());
  return 1;
}
