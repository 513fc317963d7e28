// The model as a whole: the paper's configuration, readouts, pruning of the last block, masked regression, seeds,
// attention maps and checkpoints.

#include "models/checkpoint.hpp"
#include "models/kernels/batched_matmul.hpp"
#include "models/kernels/fused_gelu.hpp"
#include "tests/models/helpers.hpp"

#include <catch2/catch.hpp>

#include <cmath>
#include <cstdio>
#include <functional>

using namespace loci::models;
using namespace loci::models::test;

namespace {

// One forward and backward of a fresh model: its output and every parameter's gradient.
std::pair<torch::Tensor, std::vector<torch::Tensor>> output_and_gradients(Model model, const ModelInput& in,
                                                                          const torch::Tensor& labels) {
  auto out = model->forward(in);
  model->loss(out, in, labels).backward();
  std::vector<torch::Tensor> grads;
  for (const auto& p : model->parameters()) grads.push_back(p.grad());
  return {out.output, grads};
}

int64_t count(const std::vector<torch::Tensor>& tensors) {
  int64_t n = 0;
  for (const auto& t : tensors) n += t.numel();
  return n;
}

}  // namespace

TEST_CASE("the default options are the paper's model") {
  auto model = make_model(ModelOptions(), grid(), 0);
  const auto& enc = model->encoder->options();
  CHECK(enc.d_model() == 160);
  CHECK(enc.blocks() == 4);
  CHECK(enc.heads() == 1);
  CHECK(model->encoder->block(0).fc1->weight.size(0) == 640);
  CHECK_FALSE(model->encoder->final_norm);
  // Embedding 5*160+160; per block in_proj 160*480+480, out_proj 160*160+160, two LayerNorms 4*160, fc1 160*640+640,
  // fc2 640*160+160; four learned 16x160 PEs; readout 160*4+4.
  CHECK(count(model->parameters()) == 960 + 4 * (77280 + 25760 + 640 + 103040 + 102560) + 4 * 2560 + 644);
  CHECK(model->pe_matrices().size() == 4);
  CHECK(model->classify(puzzle_batch(3, 1)).sizes() == torch::IntArrayRef({3, 4}));
}

TEST_CASE("pruning the last block changes neither logits nor gradients") {
  const auto x = puzzle_batch(5, 8);
  const auto labels = torch::tensor({3, 2, 1, 0, 1}, torch::kInt64);
  const auto target = torch::tensor({0, 15, 7, 3, 9}, torch::kInt64);
  for (const Pooling pooling : {Pooling::last, Pooling::target, Pooling::cls}) {
    for (const auto& pe :
         {PEOptions("learned"), PEOptions("rope"), PEOptions("relative").offsets(PeOffsets::coordinates)}) {
      DYNAMIC_SECTION(choice_name(pooling) << " / " << pe.type()) {
        auto run = [&](bool prune) {
          auto model = make_model(small_model(pe, pooling).prune_last_block(prune), grid(), 21);
          CHECK(model->forward({x, target, {}}).hidden.size(1) == (prune ? 1 : 16 + model->prefix()));
          return output_and_gradients(model, {x, target, {}}, labels);
        };
        const auto [pruned, pruned_grads] = run(true);
        const auto [full, full_grads] = run(false);
        CHECK(max_abs(pruned - full) < 1e-5);
        REQUIRE(pruned_grads.size() == full_grads.size());
        for (size_t i = 0; i < full_grads.size(); ++i) CHECK(max_abs(pruned_grads[i] - full_grads[i]) < 1e-5);
      }
    }
  }
}

TEST_CASE("the first projection from the input channels changes neither logits nor gradients") {
  const auto x = puzzle_batch(6, 4);
  const auto labels = torch::tensor({3, 2, 1, 0, 1, 2}, torch::kInt64);
  const auto target = torch::tensor({0, 15, 7, 3, 9, 12}, torch::kInt64);
  for (const Pooling pooling : {Pooling::last, Pooling::target}) {
    for (const auto& pe :
         {PEOptions("learned"), PEOptions("sinusoidal_2d"), PEOptions("none"), PEOptions("rope"),
          PEOptions("relative").offsets(PeOffsets::coordinates), PEOptions("learned").placement(PePlacement::shared)}) {
      DYNAMIC_SECTION(choice_name(pooling) << " / " << pe.type() << " / " << choice_name(pe.placement())) {
        auto run = [&](bool factor) {
          // d = 32 >= 4 x 5 channels: the factored projection applies.
          auto options = ModelOptions()
                             .encoder(loci::models::test::small_encoder(pe, 32, 2, 2))
                             .classification(ClassificationOptions().pooling(pooling))
                             .factor_first_projection(factor);
          return output_and_gradients(make_model(options, grid(), 5), {x, target, {}}, labels);
        };
        const auto [factored, factored_grads] = run(true);
        const auto [plain, plain_grads] = run(false);
        CHECK(max_abs(factored - plain) < 1e-5);
        REQUIRE(factored_grads.size() == plain_grads.size());
        bool all_bits_equal = torch::equal(factored, plain);
        for (size_t i = 0; i < plain_grads.size(); ++i) {
          CHECK(max_abs(factored_grads[i] - plain_grads[i]) < 1e-5);
          all_bits_equal = all_bits_equal && torch::equal(factored_grads[i], plain_grads[i]);
        }
        CHECK_FALSE(all_bits_equal);  // the products were regrouped: the other path really ran
      }
    }
  }
}

TEST_CASE("readouts by target token and by mean and by a CLS token that carries no position") {
  const auto x = puzzle_batch(4, 2);
  auto target = make_model(small_model(PEOptions("learned"), Pooling::target).prune_last_block(false), grid(), 3);
  auto last = make_model(small_model(PEOptions("learned"), Pooling::last).prune_last_block(false), grid(), 3);
  // Pointing every sample at token 15 reproduces the last-token readout.
  CHECK(max_abs(target->classify(x, torch::full({4}, 15, torch::kInt64)) - last->classify(x)) < 1e-6);
  CHECK_THROWS(target->classify(x));

  auto mean = make_model(small_model(PEOptions("learned"), Pooling::mean), grid(), 3);
  CHECK(mean->forward({x, {}, {}}).hidden.size(1) == 16);

  auto cls = make_model(small_model(PEOptions("sinusoidal_2d"), Pooling::cls), grid(), 3);
  CHECK(cls->prefix() == 1);
  CHECK(cls->pe_matrices()[0].sizes() == torch::IntArrayRef({16, 16}));
  const auto maps = cls->attention_maps({x, {}, {}});
  CHECK(maps[0].sizes() == torch::IntArrayRef({4, 2, 17, 17}));
  CHECK_THROWS_WITH(
      make_model(small_model(PEOptions("relative").variant(RelativeVariant::music_causal), Pooling::cls), grid(), 3),
      Catch::Contains("causal"));
}

TEST_CASE("attention maps on demand give one B x H x T x T map per block with rows summing to one") {
  auto model = make_model(small_model(PEOptions("alibi")), grid(), 4);
  const auto x = puzzle_batch(3, 4);
  const auto maps = model->attention_maps({x, {}, {}});
  REQUIRE(maps.size() == 2);
  for (const auto& m : maps) {
    CHECK(m.sizes() == torch::IntArrayRef({3, 2, 16, 16}));
    CHECK(max_abs(m.sum(-1) - 1.0) < 1e-5);
  }
  CHECK_FALSE(model->encoder->recording_attention());
}

TEST_CASE("masked regression: the loss counts masked tokens only") {
  auto options = ModelOptions()
                     .encoder(small_encoder(PEOptions("learned")).in_channels(3))
                     .task(Task::masked_regression)
                     .masked_regression(MaskedRegressionOptions().mask_ratio_train(0.5).mask_ratio_eval(0.75));
  auto model = make_model(options, grid(), 6);
  auto gen = make_generator(12);
  const auto mask = model->sample_mask(8, gen);
  CHECK((mask.sum(1) == 8).all().item<bool>());
  model->eval();
  CHECK((model->sample_mask(8, gen).sum(1) == 12).all().item<bool>());
  model->train();

  const auto x = torch::randn({8, 16, 3}, gen);
  ModelInput in{x, {}, mask};
  auto out = model->forward(in);
  CHECK(out.output.sizes() == torch::IntArrayRef({8, 16, 3}));
  const auto loss = model->loss(out, in, x);
  // Changing the targets of unmasked tokens leaves the loss as it is; changing a masked one does not.
  auto other = x.clone();
  other.masked_fill_(mask.logical_not().unsqueeze(-1), 100.0);
  CHECK(model->loss(out, in, other).item<double>() == Approx(loss.item<double>()));
  auto masked_changed = x.clone();
  masked_changed.masked_fill_(mask.unsqueeze(-1), 100.0);
  CHECK(model->loss(out, in, masked_changed).item<double>() > loss.item<double>() + 1.0);
  // By hand: mean over masked tokens and channels.
  const auto m = mask.unsqueeze(-1).expand_as(x);
  CHECK(loss.item<double>() == Approx((out.output - x).pow(2).masked_select(m).mean().item<double>()).epsilon(1e-5));
  // Masked tokens' inputs never reach the encoder.
  auto poked = x.clone();
  poked.masked_fill_(mask.unsqueeze(-1), 7.0);
  CHECK(max_abs(model->forward({poked, {}, mask}).output - out.output) == 0.0);
  CHECK(masked_mse(out.output, x, torch::zeros({8, 16}, torch::kBool)).item<double>() == 0.0);
}

TEST_CASE(
    "masked regression: pruning the last block to the masked rows changes neither their predictions nor the "
    "gradients") {
  for (const auto& pe :
       {PEOptions("learned"), PEOptions("rope"), PEOptions("relative").offsets(PeOffsets::coordinates)}) {
    DYNAMIC_SECTION(pe.type()) {
      auto gen = make_generator(5);
      const auto x = torch::randn({6, 16, 3}, gen);
      auto run = [&](bool prune) {
        auto options = ModelOptions()
                           .encoder(small_encoder(pe).in_channels(3))
                           .task(Task::masked_regression)
                           .prune_last_block(prune);
        auto model = make_model(options, grid(), 8);
        auto mask_gen = make_generator(3);
        const ModelInput in{x, {}, model->sample_mask(6, mask_gen), {}};
        CHECK(model->forward(in).hidden.size(1) == (prune ? 8 : 16));  // half of 16 tokens masked
        auto [out, grads] = output_and_gradients(model, in, x);
        return std::make_tuple(out, grads, in.mask);
      };
      const auto [pruned, pruned_grads, mask] = run(true);
      const auto [full, full_grads, same_mask] = run(false);
      REQUIRE(torch::equal(mask, same_mask));
      const auto rows = mask.unsqueeze(-1).expand_as(full);
      CHECK(max_abs(pruned.masked_select(rows) - full.masked_select(rows)) < 1e-5);
      CHECK(max_abs(pruned.masked_select(rows.logical_not())) == 0.0);  // visible rows: not computed, 0
      REQUIRE(pruned_grads.size() == full_grads.size());
      for (size_t i = 0; i < full_grads.size(); ++i) CHECK(max_abs(pruned_grads[i] - full_grads[i]) < 1e-5);
    }
  }
  // Masks that differ in size between samples (not sample_mask's) are not pruned, and still right.
  auto model = make_model(
      ModelOptions().encoder(small_encoder(PEOptions("learned")).in_channels(3)).task(Task::masked_regression), grid(),
      8);
  auto mask = torch::zeros({2, 16}, torch::kBool);
  mask[0][3] = true;
  mask[1][4] = true;
  mask[1][9] = true;
  CHECK(model->forward({torch::ones({2, 16, 3}), {}, mask, {}}).hidden.size(1) == 16);
}

TEST_CASE("a seed fixes the whole model and another seed changes it") {
  auto a = make_model(small_model(PEOptions("learned")), grid(), 99);
  auto b = make_model(small_model(PEOptions("learned")), grid(), 99);
  auto c = make_model(small_model(PEOptions("learned")), grid(), 100);
  const auto pa = a->named_parameters(), pb = b->named_parameters(), pc = c->named_parameters();
  for (const auto& p : pa) {
    INFO(p.key());
    CHECK(torch::equal(p.value(), pb[p.key()]));
    if (p.key().find("norm") == std::string::npos) CHECK_FALSE(torch::equal(p.value(), pc[p.key()]));
  }
}

TEST_CASE("a checkpoint restores parameters and buffers beside other entries of the archive") {
  const auto path = std::string(LOCI_BUILD_DIR) + "/test_models_checkpoint.pt";
  const auto x = puzzle_batch(4, 3);
  auto saved = make_model(small_model(PEOptions("random_fixed")), grid(), 1);
  {
    torch::serialize::OutputArchive archive;
    save_module(*saved, archive);
    archive.write("step", torch::tensor(1234));
    archive.save_to(path);
  }
  auto restored = make_model(small_model(PEOptions("random_fixed")), grid(), 2);
  CHECK(max_abs(restored->classify(x) - saved->classify(x)) > 0.0);
  torch::serialize::InputArchive archive;
  archive.load_from(path);
  load_module(*restored, archive);
  torch::Tensor step;
  archive.read("step", step);
  CHECK(step.item<int64_t>() == 1234);
  CHECK(max_abs(restored->classify(x) - saved->classify(x)) == 0.0);
  CHECK(max_abs(restored->pe_matrices()[1] - saved->pe_matrices()[1]) == 0.0);

  save_checkpoint(*saved, path);
  auto again = make_model(small_model(PEOptions("random_fixed")), grid(), 3);
  load_checkpoint(*again, path);
  CHECK(max_abs(again->classify(x) - saved->classify(x)) == 0.0);
  auto wrong = make_model(ModelOptions(), grid(), 3);
  CHECK_THROWS(load_checkpoint(*wrong, path));
  std::remove(path.c_str());
}

TEST_CASE("a batch whose token count is not the positions' is refused") {
  CHECK_THROWS(make_model(small_model(PEOptions("learned")), grid(), 1)->classify(torch::zeros({2, 9, 5})));
}

TEST_CASE("fused GELU matches torch::gelu and its gradient") {
  auto x = torch::cat({torch::linspace(-12, 12, 20001), torch::randn({100000}, make_generator(1)) * 3.0,
                       torch::tensor({0.0f, -0.0f, 1e-30f, -100.0f, 100.0f})})
               .requires_grad_(true);
  auto reference_x = x.detach().clone().requires_grad_(true);
  auto y = fused_gelu(x);
  auto reference = torch::gelu(reference_x);
  CHECK(max_abs(y - reference) < 1e-6);
  CHECK(max_abs((y - reference) / reference.abs().clamp_min(1.0)) < 5e-7);
  auto g = torch::randn({x.size(0)}, make_generator(2));
  y.backward(g);
  reference.backward(g);
  CHECK(max_abs(x.grad() - reference_x.grad()) < 1e-6);
  // Shapes other than 1D and non-contiguous inputs.
  auto m = torch::randn({7, 9}, make_generator(3)).t();
  CHECK(max_abs(fused_gelu(m) - torch::gelu(m)) < 1e-6);
  CHECK(fused_gelu(m).sizes() == m.sizes());
  // The backward writes into its saved slope: a second backward through the same graph is refused, not wrong.
  auto x2 = torch::randn({64}, make_generator(4)).requires_grad_(true);
  auto y2 = fused_gelu(x2);
  y2.backward(g.narrow(0, 0, 64), /*retain_graph=*/true);
  CHECK_THROWS_WITH(y2.backward(g.narrow(0, 0, 64)), Catch::Contains("modified by an inplace operation"));
}

TEST_CASE("fused GELU on bfloat16 (the MLP under bf16 autocast) matches ATen's bf16 gelu and its gradient") {
  const auto values = torch::cat({torch::linspace(-12, 12, 20001), torch::randn({50000}, make_generator(5)) * 3.0,
                                  torch::tensor({0.0f, -0.0f, 1e-30f, -100.0f, 100.0f})});
  auto x = values.to(torch::kBFloat16).requires_grad_(true);
  auto reference_x = x.detach().clone().requires_grad_(true);
  auto y = fused_gelu(x);
  auto reference = torch::gelu(reference_x);
  REQUIRE(y.scalar_type() == torch::kBFloat16);
  // Both compute in float and round once; one bfloat16 ulp (2^-8 relative) covers erf's last float bits.
  const auto ulp = [](const torch::Tensor& a, const torch::Tensor& b) {
    return max_abs((a.to(torch::kFloat) - b.to(torch::kFloat)) / b.to(torch::kFloat).abs().clamp_min(1e-3));
  };
  CHECK(ulp(y, reference) <= 1.0 / 128);
  auto g = torch::randn({x.size(0)}, make_generator(6)).to(torch::kBFloat16);
  y.backward(g);
  reference.backward(g);
  REQUIRE(x.grad().scalar_type() == torch::kBFloat16);
  CHECK(ulp(x.grad(), reference_x.grad()) <= 1.0 / 128);
  // NaN stays NaN, as in ATen.
  auto nan = torch::full({3}, std::nanf(""), torch::kBFloat16);
  CHECK(fused_gelu(nan).to(torch::kFloat).isnan().all().item<bool>());
}

TEST_CASE("batched matmul matches torch::matmul forward and backward whatever the operands' strides, scaled or not") {
  auto gen = make_generator(4);
  using Views = std::function<std::pair<torch::Tensor, torch::Tensor>(const torch::Tensor&, const torch::Tensor&)>;
  struct Case {
    const char* name;
    torch::Tensor x, y;  // leaves
    Views views;
  };
  // Views like attention's: heads split out of a wider projection, keys transposed, one query row, plain tensors.
  auto heads = [](const torch::Tensor& t, int64_t part) {
    return t.view({3, 7, 3, 2, 10}).select(2, part).transpose(1, 2);
  };
  const std::vector<Case> cases = {
      {"strided q . k^T", torch::randn({3, 7, 60}, gen), torch::randn({1}, gen),
       [&](const torch::Tensor& x, const torch::Tensor&) {
         return std::make_pair(heads(x, 0), heads(x, 1).transpose(2, 3));
       }},
      {"weights . v", torch::randn({3, 2, 7, 7}, gen), torch::randn({3, 7, 60}, gen),
       [&](const torch::Tensor& x, const torch::Tensor& y) { return std::make_pair(x, heads(y, 2)); }},
      {"one row", torch::randn({3, 2, 1, 7}, gen), torch::randn({3, 7, 60}, gen),
       [&](const torch::Tensor& x, const torch::Tensor& y) { return std::make_pair(x, heads(y, 2)); }},
      {"contiguous", torch::randn({2, 1, 16, 9}, gen), torch::randn({2, 1, 9, 16}, gen),
       [](const torch::Tensor& x, const torch::Tensor& y) { return std::make_pair(x, y); }},
      {"both transposed", torch::randn({2, 3, 9, 4}, gen), torch::randn({2, 3, 6, 9}, gen),
       [](const torch::Tensor& x, const torch::Tensor& y) {
         return std::make_pair(x.transpose(2, 3), y.transpose(2, 3));
       }},
  };
  for (const auto& c : cases)
    for (double scale : {1.0, 0.3}) {
      INFO(c.name << ", scale " << scale);
      auto run = [&](bool ours) {
        auto x = c.x.detach().clone().requires_grad_(true), y = c.y.detach().clone().requires_grad_(true);
        auto [a, b] = c.views(x, y);
        auto out = ours ? batched_matmul(a, b, scale) : torch::matmul(a, b) * scale;
        out.backward(torch::ones_like(out) + torch::arange(out.numel()).reshape(out.sizes()).remainder(5));
        return std::make_tuple(out.detach(), x.grad(), y.grad());
      };
      const auto [out, gx, gy] = run(true);
      const auto [ref, rx, ry] = run(false);
      CHECK(max_abs(out - ref) < 1e-5);
      CHECK(max_abs(gx - rx) < 1e-4);
      if (ry.defined()) CHECK(max_abs(gy - ry) < 1e-4);
    }
}

TEST_CASE("pooling every: each token's logits, the target's row as the output, and a loss over the counted tokens") {
  const auto x = puzzle_batch(4, 5);
  const auto target = torch::tensor({0, 15, 7, 3}, torch::kInt64);
  auto model = make_model(small_model(PEOptions("learned"), Pooling::every), grid(), 21);
  const auto out = model->forward({x, target, {}});
  REQUIRE(out.dense.sizes() == torch::IntArrayRef({4, 16, 4}));
  // Accuracy reads the target cell from its own token.
  for (int64_t b = 0; b < 4; ++b) CHECK(max_abs(out.output[b] - out.dense[b][target[b].item<int64_t>()]) == 0);
  // The loss is the mean cross-entropy over the counted tokens only, worked out here by hand.
  const auto classes = torch::randint(0, 4, {4, 16}, torch::kInt64);
  torch::Tensor counted = torch::zeros({4, 16}, torch::kBool);
  counted.index_put_({torch::indexing::Slice(), torch::indexing::Slice(0, 3)}, true);
  const auto by_hand = -torch::log_softmax(out.dense, -1).gather(2, classes.unsqueeze(-1)).squeeze(-1);
  CHECK(model->loss(out, {x, target, counted}, classes).item<double>() ==
        Approx(by_hand.narrow(1, 0, 3).mean().item<double>()).epsilon(1e-5));
  CHECK(model->loss(out, {x, target, {}}, classes).item<double>() ==
        Approx(by_hand.mean().item<double>()).epsilon(1e-5));
  // Every token's own row reaches the PE: a loss on one token's classes moves that token's PE row.
  auto fresh = make_model(small_model(PEOptions("learned"), Pooling::every), grid(), 21);
  counted = torch::zeros({4, 16}, torch::kBool);
  counted.index_put_({torch::indexing::Slice(), 5}, true);
  fresh->loss(fresh->forward({x, target, counted}), {x, target, counted}, classes).backward();
  int tables = 0;
  for (const auto& p : fresh->named_parameters())
    if (p.key().find("pe") != std::string::npos && p.value().dim() == 2 && p.value().size(0) == 16) {
      ++tables;
      CHECK(max_abs(p.value().grad()[5]) > 0);
    }
  CHECK(tables > 0);
}
