// The position-position attention term (Model::position_logits) and the fixed-norm learned PE: what the trainer
// records in pe.h5 and what the regime map's shape-against-scale control relies on.

#include "tests/models/helpers.hpp"

#include <torch/optim/adamw.h>
#include <catch2/catch.hpp>

using namespace loci::models;
using namespace loci::models::test;

namespace {
double max_abs_diff(const torch::Tensor& a, const torch::Tensor& b) { return (a - b).abs().max().item<double>(); }
}  // namespace

TEST_CASE("the position term is block 0's attention logits exactly when the tokens carry nothing but their position") {
  for (const int64_t heads : {1, 2}) {
    DYNAMIC_SECTION(heads << " heads") {
      auto opts = small_model(PEOptions("learned"));
      opts.encoder().heads(heads);
      auto model = make_model(opts, grid(), 3);
      {
        torch::NoGradGuard no_grad;
        model->encoder->embedding->bias.zero_();
        model->encoder->block(0).attention->in_proj->bias.zero_();
      }
      // A zero input embeds to the (zeroed) bias: block 0's input is its PE alone, so its logits are the term.
      const torch::Tensor x = torch::zeros({2, 16, 5});
      const auto maps = model->attention_maps({x, {}, {}});
      const auto logits = model->position_logits();
      REQUIRE(logits.size() == 2);
      REQUIRE(logits[0].sizes() == torch::IntArrayRef({heads, 16, 16}));
      CHECK(max_abs_diff(torch::softmax(logits[0], -1), maps[0][0]) < 1e-5);
      CHECK(max_abs_diff(torch::softmax(logits[0], -1), maps[0][1]) < 1e-5);
      // Block 1's input is not its PE alone, so only its shape is checked there.
      CHECK(logits[1].sizes() == torch::IntArrayRef({heads, 16, 16}));
    }
  }
}

TEST_CASE("blocks whose attention sees no [T, d] PE have no position term") {
  auto rope = make_model(small_model(PEOptions("rope")), grid(), 3);
  for (const auto& l : rope->position_logits()) CHECK(l.numel() == 0);
  auto input_only = make_model(small_model(PEOptions("learned").placement(PePlacement::input_only)), grid(), 3);
  const auto l = input_only->position_logits();
  CHECK(l[0].numel() == 2 * 16 * 16);
  CHECK(l[1].numel() == 0);
  // A fixed PE has a term too: it moves through the query and key weights alone.
  auto fixed = make_model(small_model(PEOptions("sinusoidal_2d")), grid(), 3);
  CHECK(fixed->position_logits()[0].numel() == 2 * 16 * 16);
}

TEST_CASE("learned_fixed_norm keeps each block's PE at its draw's norm while its direction learns") {
  auto model = make_model(small_model(PEOptions("learned_fixed_norm").init(InitOptions("normal").std(2.0))), grid(), 7);
  auto reference = make_model(small_model(PEOptions("learned").init(InitOptions("normal").std(2.0))), grid(), 7);
  const auto before = model->pe_matrices();
  // The same draw as the free learned PE of the same seed: only the constraint differs.
  CHECK(max_abs_diff(before[0], reference->pe_matrices()[0]) == 0.0);
  const auto x = puzzle_batch(8, 5);
  const auto labels = torch::randint(0, 4, {8}, make_generator(2), torch::kInt64);
  // Weight decay that would shrink a free table by a third in these steps.
  torch::optim::AdamW opt(model->parameters(), torch::optim::AdamWOptions(1e-2).weight_decay(5.0));
  for (int step = 0; step < 8; ++step) {
    opt.zero_grad();
    model->loss(model->forward({x, {}, {}}), {x, {}, {}}, labels).backward();
    opt.step();
    model->after_optimizer_step();
  }
  const auto after = model->pe_matrices();
  for (size_t p = 0; p < before.size(); ++p) {
    CHECK(after[p].norm().item<double>() == Approx(before[p].norm().item<double>()).epsilon(1e-5));
    const double cosine = (after[p] * before[p]).sum().item<double>() /
                          (after[p].norm().item<double>() * before[p].norm().item<double>());
    CHECK(cosine < 1.0 - 1e-6);
  }
}
