// Training-step throughput of the paper's model (batch 128, T = 16, C = 5, d = 160, 4 blocks, learned PE, AdamW
// lr 1e-4) per thread count, the FLOPs a step needs counted analytically, and the machine's measured GEMM rate at
// the model's matrix sizes for comparison. Prints RESULT/GEMM lines that run.sh turns into a table.
//
// Usage: bench_model [--threads 1,2] [--steps 10] [--reps 5] [--warmup 3] [--parts 2] [--bf16 | --bf16-fused]
//                    [--no-prune] [--no-factor] [--breakdown] [--default-malloc] [--profile TRACE]
// --parts: the batch's gradient as that many parts' gradients summed, the parts side by side on the threads, one
// thread each (models/micro_batches.hpp, as `train.micro_batches` does); 0: plain LibTorch, one pass over the batch
// with each operation split over the threads (what the trainer did before micro-batches).
// The allocator is tuned as a trainer should (models/allocator.hpp) unless --default-malloc is given.
// --breakdown adds the CPU time of forward, backward and the optimizer step separately (in fp32).
// --profile writes a Chrome trace of a few steps per thread count, per ATen operation, to TRACE.<threads>.

#include "models/allocator.hpp"
#include "models/blas_info.hpp"
#include "models/kernels/fused_adamw.hpp"
#include "models/micro_batches.hpp"
#include "models/model.hpp"
#include "models/positions/sinusoid.hpp"
#include "models/precision_scope.hpp"
#include "step_precision.hpp"
#include "step_timing.hpp"

#include <ATen/Parallel.h>
#include <torch/csrc/autograd/profiler_legacy.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sstream>
#include <string>
#include <vector>

namespace {

using loci::bench::time_per_call;
using loci::models::ModelOptions;

constexpr int64_t kBatch = 128, kTokens = 16, kChannels = 5, kD = 160, kBlocks = 4, kHidden = 640, kClasses = 4;

struct Args : loci::bench::StepRounds {
  Args() { parts = 2; }
  loci::bench::StepPrecision step;  // --bf16, --bf16-fused
  bool prune = true, factor = true, breakdown = false, tune_malloc = true;
  std::string profile;  // a Chrome trace of a few steps, per ATen operation
};

Args parse(int argc, char** argv) {
  Args a;
  loci::bench::parse_arguments(argc, argv, [&](const std::string& arg, auto& next) {
    if (a.parse_round(arg, next) || a.step.parse(arg)) return true;
    if (arg == "--no-prune")
      a.prune = false;
    else if (arg == "--no-factor")
      a.factor = false;
    else if (arg == "--default-malloc")
      a.tune_malloc = false;
    else if (arg == "--breakdown")
      a.breakdown = true;
    else if (arg == "--profile")
      a.profile = next();
    else
      return false;
    return true;
  });
  return a;
}

// Matrix-product FLOPs (2 per multiply-add) of a forward pass; backward costs twice that. `pruned`: the last block
// computes only the last token past its attention. `factored`: the first block projects the 5 input channels
// (models/block.hpp, LinearInput) instead of the d-dimensional embedding.
double forward_flops(bool pruned, bool factored) {
  const double n = kBatch * kTokens, b = kBatch;
  const double qkv = 2 * n * kD * 3 * kD, scores = 2 * 2 * b * kTokens * kTokens * kD;
  const double rest_per_token = 2.0 * kD * kD + 2 * 2.0 * kD * kHidden;  // out_proj + MLP
  const double block = qkv + scores + n * rest_per_token;
  const double last = pruned ? qkv + scores / kTokens + b * rest_per_token : block;
  const double first_qkv =
      factored ? 2 * n * kChannels * 3 * kD + 2 * 3 * kD * kD * kChannels + 2 * kTokens * kD * 3 * kD : qkv;
  return 2 * n * kChannels * kD + (kBlocks - 1) * block - qkv + first_qkv + last + 2 * b * kD * kClasses;
}

double step_flops(bool pruned, bool factored) { return 3 * forward_flops(pruned, factored); }

// The products a training step runs, forward and backward shapes, at the model's sizes.
double gemm_gflops(torch::ScalarType dtype, int calls) {
  const int64_t n = kBatch * kTokens;
  struct Shape {
    int64_t m, k, n;
  };
  const std::vector<Shape> shapes = {
      {n, kD, 3 * kD}, {n, kD, kD},      {n, kD, kHidden}, {n, kHidden, kD},  // forward
      {n, 3 * kD, kD}, {n, kHidden, kD}, {n, kD, kHidden},                    // input gradients
      {3 * kD, n, kD}, {kHidden, n, kD}, {kD, n, kHidden},                    // weight gradients
  };
  std::vector<std::pair<torch::Tensor, torch::Tensor>> operands;
  double flops = 0;
  for (const auto& s : shapes) {
    operands.emplace_back(torch::randn({s.m, s.k}).to(dtype), torch::randn({s.k, s.n}).to(dtype));
    flops += 2.0 * s.m * s.k * s.n;
  }
  const auto t = time_per_call(
      [&] {
        for (const auto& [a, b] : operands) torch::mm(a, b);
      },
      3, calls, 5);
  return flops / t.wall / 1e9;
}

}  // namespace

int main(int argc, char** argv) try {
  const Args args = parse(argc, argv);
  if (args.tune_malloc && !loci::models::tune_allocator()) std::fprintf(stderr, "bench_model: malloc not tuned\n");
  torch::manual_seed(0);
  auto symbols = torch::randint(0, 6, {kBatch, kTokens}, torch::kInt64);
  const auto x = torch::one_hot(symbols, 6).narrow(2, 0, kChannels).to(torch::kFloat32).contiguous();
  const auto y = torch::randint(0, kClasses, {kBatch}, torch::kInt64);
  const auto positions = loci::models::grid_positions(4, 4);

  std::printf("model: batch %lld, T %lld, C %lld, d %lld, %lld blocks, learned PE per block, AdamW lr 1e-4%s%s\n",
              static_cast<long long>(kBatch), static_cast<long long>(kTokens), static_cast<long long>(kChannels),
              static_cast<long long>(kD), static_cast<long long>(kBlocks), args.prune ? ", last block pruned" : "",
              args.step.header().c_str());
  const char* core = std::getenv("OPENBLAS_CORETYPE");
  std::printf("blas: %s (OPENBLAS_CORETYPE %s)\n", loci::models::blas_description().c_str(), core ? core : "not set");
  std::printf("malloc: %s\n", args.tune_malloc ? "tuned (loci::models::tune_allocator)" : "glibc defaults");
  std::printf("FLOPs per step: %.3g (model), %.3g executed\n", step_flops(false, false),
              step_flops(args.prune, args.factor));

  for (int threads : args.threads) {
    at::set_num_threads(threads);
    auto options = ModelOptions().prune_last_block(args.prune).factor_first_projection(args.factor);
    options.encoder().pe().init(loci::models::InitOptions("normal").std(0.2));
    auto model = loci::models::make_model(options, positions, 0);
    loci::models::FusedAdamW opt(model->parameters(), torch::optim::AdamWOptions(1e-4).weight_decay(0.0));
    // The trainer's step (plugins/torch_trainer): the batch's gradient as the sum of `parts` parts' gradients,
    // the parts side by side on the threads, each under the precision asked for.
    loci::models::MicroBatches parts(loci::models::MicroBatchOptions(std::max(1, args.parts), threads));
    auto step = [&] {
      if (args.parts == 0) {  // plain LibTorch: one pass over the batch, each operation split over the threads
        opt.zero_grad();
        torch::Tensor logits;
        {
          const loci::models::PrecisionScope precision(args.step.precision, args.step.bf16_products, torch::kCPU);
          logits = model->classify(x);
        }
        torch::cross_entropy_loss(logits.to(torch::kFloat32), y).backward();
        opt.step();
        return;
      }
      parts.backward(model->parameters(), [&](int p) {
        const auto [begin, end] = loci::models::MicroBatches::range(p, args.parts, kBatch);
        torch::Tensor logits;
        {
          const loci::models::PrecisionScope precision(args.step.precision, args.step.bf16_products, torch::kCPU);
          logits = model->classify(x.narrow(0, begin, end - begin));
        }
        return torch::cross_entropy_loss(logits.to(torch::kFloat32), y.narrow(0, begin, end - begin)) *
               (static_cast<double>(end - begin) / kBatch);
      });
      opt.step();
    };
    const auto t = time_per_call(step, args.warmup, args.steps, args.reps);
    if (!args.profile.empty()) {
      const torch::autograd::profiler::RecordProfile record(args.profile + "." + std::to_string(threads));
      for (int i = 0; i < args.steps; ++i) step();
    }
    const double s = t.wall;
    std::printf(
        "RESULT impl=cpp%s threads=%d ms_per_step=%.2f puzzles_per_s=%.0f cpu_ms_per_step=%.2f gflops=%.1f "
        "model_gflops=%.1f\n",
        args.step.suffix(), threads, s * 1e3, kBatch / s, t.cpu * 1e3, step_flops(args.prune, args.factor) / s / 1e9,
        step_flops(false, false) / s / 1e9);
    if (args.breakdown) {
      const auto fwd = time_per_call([&] { model->classify(x); }, 2, args.steps);
      const auto fwd_bwd = time_per_call(
          [&] {
            opt.zero_grad();
            torch::cross_entropy_loss(model->classify(x), y).backward();
          },
          2, args.steps);
      std::printf("BREAKDOWN threads=%d cpu_ms forward=%.1f backward=%.1f optimizer=%.1f\n", threads, fwd.cpu * 1e3,
                  (fwd_bwd.cpu - fwd.cpu) * 1e3, (t.cpu - fwd_bwd.cpu) * 1e3);
    }
    std::printf("GEMM threads=%d fp32_gflops=%.1f", threads, gemm_gflops(torch::kFloat32, 10));
    if (args.step.precision != loci::models::Precision::fp32)
      std::printf(" bf16_gflops=%.1f", gemm_gflops(torch::kBFloat16, 10));
    std::printf("\n");
    std::fflush(stdout);
  }
  return 0;
} catch (const std::exception& e) {
  std::fprintf(stderr, "bench_model: %s\n", e.what());
  return 1;
}
