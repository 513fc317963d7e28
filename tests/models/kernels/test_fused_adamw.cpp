// The one-pass AdamW (models/kernels/fused_adamw.hpp) against LibTorch's own AdamW.

#include "models/kernels/fused_adamw.hpp"
#include "models/model.hpp"
#include "tests/models/helpers.hpp"

#include <torch/serialize.h>
#include <catch2/catch.hpp>

#include <sstream>

using namespace loci::models;
using loci::models::test::max_difference;

namespace {

// Parameters as a model has them, and one that is a transposed view (not contiguous: LibTorch's path).
std::vector<torch::Tensor> parameters(uint64_t seed) {
  auto gen = make_generator(seed);
  return {torch::randn({64, 50}, gen).requires_grad_(true), torch::randn({64}, gen).requires_grad_(true),
          torch::randn({100, 64}, gen).t().requires_grad_(true), torch::randn({3}, gen).requires_grad_(true)};
}

void set_gradients(std::vector<torch::Tensor>& params, int step) {
  auto gen = make_generator(100 + static_cast<uint64_t>(step));
  for (auto& p : params) p.mutable_grad() = torch::randn(p.sizes(), gen) * (step % 2 ? 1e-3 : 10.0);
  params[3].mutable_grad() = torch::Tensor();  // a parameter without a gradient is skipped
}

// Steps [first, last) of two optimizers over their own copies of the parameters, fed the same gradients.
void step_both(torch::optim::Optimizer& a, std::vector<torch::Tensor>& a_params, torch::optim::Optimizer& b,
               std::vector<torch::Tensor>& b_params, int first, int last) {
  for (int step = first; step < last; ++step) {
    set_gradients(a_params, step);
    set_gradients(b_params, step);
    a.step();
    b.step();
  }
}

}  // namespace

TEST_CASE("the one-pass AdamW follows LibTorch's AdamW step by step, weight decay included") {
  for (double decay : {0.0, 0.5}) {
    INFO("weight decay " << decay);
    auto ours = parameters(1), theirs = parameters(1);
    const auto options = torch::optim::AdamWOptions(1e-2).weight_decay(decay);
    FusedAdamW fused(ours, options);
    torch::optim::AdamW reference(theirs, options);
    step_both(fused, ours, reference, theirs, 0, 6);
    CHECK(max_difference(ours, theirs) < 1e-6);
    // The parameters moved (by up to lr a step), the one without a gradient did not.
    CHECK(max_difference(ours, parameters(1)) > 1e-2);
    CHECK(ours[3].equal(parameters(1)[3]));
  }
}

TEST_CASE("the one-pass AdamW's state is AdamW's: a checkpoint of one resumes in the other") {
  auto ours = parameters(2), theirs = parameters(2);
  const auto options = torch::optim::AdamWOptions(1e-2).weight_decay(0.1);
  FusedAdamW fused(ours, options);
  torch::optim::AdamW reference(theirs, options);
  step_both(fused, ours, reference, theirs, 0, 3);
  std::stringstream saved;
  {
    torch::serialize::OutputArchive archive;
    fused.save(archive);
    archive.save_to(saved);
  }
  auto resumed_params = std::vector<torch::Tensor>();
  for (const auto& p : ours) resumed_params.push_back(p.detach().clone().requires_grad_(true));
  torch::optim::AdamW resumed(resumed_params, options);
  {
    torch::serialize::InputArchive archive;
    archive.load_from(saved);
    resumed.load(archive);
  }
  step_both(resumed, resumed_params, reference, theirs, 3, 5);
  CHECK(max_difference(resumed_params, theirs) < 1e-6);
}
