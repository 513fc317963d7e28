// Every positional encoding: shapes forward and backward, what learns and what stays fixed, and the defining property
// of each (causal mask, rotation invariances, grid structure of the 2D sinusoid).

#include "models/pe/rotary.hpp"
#include "tests/models/helpers.hpp"

#include <torch/optim/adam.h>
#include <catch2/catch.hpp>

using namespace loci::models;
using namespace loci::models::test;

namespace {

std::shared_ptr<PositionalEncodingImpl> make_pe(const PEOptions& o, const torch::Tensor& positions, int64_t d,
                                                int64_t heads, int64_t placements = 1) {
  PEContext c;
  c.d_model = d;
  c.heads = heads;
  c.placements = placements;
  c.positions = positions;
  c.generator = make_generator(1);
  return PERegistry::create(o, c);
}

}  // namespace

TEST_CASE("the registry lists every PE and refuses unknown names") {
  for (const char* name : {"none", "sinusoidal_1d", "sinusoidal_2d", "sinusoidal_nd", "learned", "learned_fixed_norm",
                           "random_fixed", "relative", "rope", "rope_axial", "alibi"})
    CHECK(PERegistry::contains(name));
  CHECK_THROWS_WITH(make_pe(PEOptions("learnt"), grid(), 16, 2), Catch::Contains("known: alibi"));
}

TEST_CASE("every PE type and placement runs forward and backward with the right shapes") {
  const auto x = puzzle_batch(6, 3);
  const auto labels = torch::tensor({0, 1, 2, 3, 0, 1}, torch::kInt64);
  for (const auto& pe_case : all_pe_cases()) {
    for (const auto& [placement_name, placement] : pe_placements()) {
      DYNAMIC_SECTION(pe_case.label << " / " << placement_name) {
        auto pe = pe_case.options;
        pe.placement(placement);
        auto model = make_model(small_model(pe), grid(), 7);
        auto out = model->forward({x, {}, {}});
        REQUIRE(out.output.sizes() == torch::IntArrayRef({6, 4}));
        model->loss(out, {x, {}, {}}, labels).backward();
        for (const auto& p : model->named_parameters()) {
          INFO(p.key());
          REQUIRE(p.value().grad().defined());
          CHECK(p.value().grad().sizes() == p.value().sizes());
        }
        const auto matrices = model->pe_matrices();
        CHECK(matrices.size() == (placement == PePlacement::per_block ? 2u : 1u));
        const auto& type = pe.type();
        if (type == "none" || type == "rope" || type == "rope_axial") {
          CHECK(matrices[0].numel() == 0);
        } else if (type != "relative" && type != "alibi") {
          CHECK(matrices[0].sizes() == torch::IntArrayRef({16, 16}));
        }
        // The hidden state of a full (unpruned) forward is batch-first [B, T, d].
        CHECK(model->encoder->forward(x).sizes() == torch::IntArrayRef({6, 16, 16}));
      }
    }
  }
}

TEST_CASE("learned PEs receive gradients and move while fixed PEs never do") {
  const auto x = puzzle_batch(8, 5);
  const auto labels = torch::randint(0, 4, {8}, make_generator(2), torch::kInt64);
  for (const auto& pe_case : all_pe_cases()) {
    DYNAMIC_SECTION(pe_case.label) {
      auto model = make_model(small_model(pe_case.options), grid(), 11);
      const auto before = model->pe_matrices();
      torch::optim::Adam opt(model->parameters(), torch::optim::AdamOptions(1e-2));
      opt.zero_grad();
      auto out = model->forward({x, {}, {}});
      model->loss(out, {x, {}, {}}, labels).backward();
      const auto& type = pe_case.options.type();
      const bool learns = type == "learned" || type == "learned_fixed_norm" || type == "relative";
      if (learns) {
        for (const auto& p : model->encoder->pe().named_parameters()) {
          INFO(p.key());
          CHECK(max_abs(p.value().grad()) > 0.0);
        }
      }
      opt.step();
      const auto after = model->pe_matrices();
      REQUIRE(before.size() == after.size());
      for (size_t i = 0; i < before.size(); ++i) {
        const double moved = before[i].numel() == 0 ? 0.0 : max_abs(after[i] - before[i]);
        if (learns)
          CHECK(moved > 1e-4);
        else
          CHECK(moved == 0.0);
      }
      if (is_fixed(type)) CHECK(model->encoder->pe().parameters().empty());
    }
  }
}

TEST_CASE("music_causal relative attention never attends to later tokens") {
  auto model = make_model(small_model(PEOptions("relative").variant(RelativeVariant::music_causal)), grid(), 3);
  const auto maps = model->attention_maps({puzzle_batch(4, 1), {}, {}});
  REQUIRE(maps.size() == 2);
  for (const auto& m : maps) {
    REQUIRE(m.sizes() == torch::IntArrayRef({4, 2, 16, 16}));
    CHECK(max_abs(m.triu(1)) == 0.0);
    CHECK(max_abs(m.sum(-1) - 1.0) < 1e-5);
    CHECK(max_abs(m.tril()) > 0.0);
  }
  // Without a causal PE the same model looks ahead.
  auto plain = make_model(small_model(PEOptions("relative")), grid(), 3);
  CHECK(max_abs(plain->attention_maps({puzzle_batch(4, 1), {}, {}})[0].triu(1)) > 0.0);
}

TEST_CASE("music_causal relative logits use the embedding of the offset j - i") {
  auto pe = make_pe(PEOptions("relative").variant(RelativeVariant::music_causal), index_positions(5), 4, 1);
  const auto table = pe->table(0);  // [1, 5, 4], row 4 is offset 0
  auto q = torch::randn({1, 1, 5, 4}, make_generator(4));
  const auto bias = pe->attention_bias(0, q, 0.5);
  for (int64_t i = 0; i < 5; ++i)
    for (int64_t j = 0; j <= i; ++j)
      CHECK(bias[0][0][i][j].item<double>() ==
            Approx((q[0][0][i] * table[0][4 + j - i]).sum().item<double>() * 0.5).margin(1e-6));
}

TEST_CASE("rope preserves norms and makes q.k depend only on the offset") {
  auto pe = make_pe(PEOptions("rope"), index_positions(12), 32, 2);
  auto gen = make_generator(9);
  auto q = torch::randn({3, 2, 12, 16}, gen), k = torch::randn({3, 2, 12, 16}, gen);
  auto qr = q, kr = k;
  pe->rotate(qr, kr, 0);
  CHECK(max_abs(qr.norm(2, -1) - q.norm(2, -1)) < 1e-5);
  CHECK(max_abs(kr.norm(2, -1) - k.norm(2, -1)) < 1e-5);
  CHECK(max_abs(qr.select(2, 0) - q.select(2, 0)) < 1e-6);  // position 0 is not rotated
  // The same query and key vector at every position: the score matrix must be Toeplitz.
  auto u = torch::randn({1, 1, 1, 16}, gen).expand({1, 1, 12, 16}).contiguous();
  auto w = torch::randn({1, 1, 1, 16}, gen).expand({1, 1, 12, 16}).contiguous();
  pe->rotate(u, w, 0);
  const auto s = torch::matmul(u, w.transpose(-2, -1))[0][0];
  CHECK(max_abs(s.narrow(0, 1, 11).narrow(1, 1, 11) - s.narrow(0, 0, 11).narrow(1, 0, 11)) < 1e-5);
  // ... and not constant: the offset matters.
  CHECK(max_abs(s - s[0][0]) > 1e-3);
  // The rotation acts along the sequence axis: samples of a batch are rotated identically.
  auto a = torch::randn({1, 1, 12, 16}, gen);
  auto b = a.expand({3, 1, 12, 16}).contiguous();
  auto a2 = a.clone(), b2 = b.clone();
  pe->rotate(a, a2, 0);
  pe->rotate(b, b2, 0);
  CHECK(max_abs(b - a) < 1e-7);
}

TEST_CASE("axial rope makes q.k depend only on the grid offset") {
  auto pe = make_pe(PEOptions("rope_axial"), grid(), 16, 1);
  auto gen = make_generator(10);
  auto u = torch::randn({1, 1, 1, 16}, gen).expand({1, 1, 16, 16}).contiguous();
  auto w = torch::randn({1, 1, 1, 16}, gen).expand({1, 1, 16, 16}).contiguous();
  pe->rotate(u, w, 0);
  const auto s = torch::matmul(u, w.transpose(-2, -1))[0][0];
  auto cell = [](int r, int c) { return static_cast<int64_t>(4 * r + c); };
  // (0,0)->(1,2) and (2,1)->(3,3) share the offset (1,2); (0,0)->(2,1) has another.
  CHECK(s[cell(0, 0)][cell(1, 2)].item<double>() == Approx(s[cell(2, 1)][cell(3, 3)].item<double>()).margin(1e-5));
  CHECK(s[cell(1, 3)][cell(1, 0)].item<double>() == Approx(s[cell(3, 3)][cell(3, 0)].item<double>()).margin(1e-5));
  CHECK(std::abs(s[cell(0, 0)][cell(1, 2)].item<double>() - s[cell(0, 0)][cell(2, 1)].item<double>()) > 1e-4);
}

TEST_CASE("sinusoidal PEs follow the 1D formula and the 2D halves encode column and row") {
  const auto one = make_pe(PEOptions("sinusoidal_1d"), index_positions(16), 8, 1)->matrix(0);
  CHECK(one[3][0].item<double>() == Approx(std::sin(3.0)).margin(1e-6));
  CHECK(one[3][1].item<double>() == Approx(std::cos(3.0)).margin(1e-6));
  CHECK(one[5][2].item<double>() == Approx(std::sin(5.0 * std::pow(10000.0, -2.0 / 8))).margin(1e-6));

  const auto two = make_pe(PEOptions("sinusoidal_2d"), grid(), 16, 1)->matrix(0);
  const auto col = two.narrow(1, 0, 8), row = two.narrow(1, 8, 8);
  for (int64_t a = 0; a < 16; ++a)
    for (int64_t b = 0; b < 16; ++b) {
      const bool same_row = a / 4 == b / 4, same_col = a % 4 == b % 4;
      CHECK((max_abs(row[a] - row[b]) == 0.0) == same_row);
      CHECK((max_abs(col[a] - col[b]) == 0.0) == same_col);
    }
  // Given only a token index, 16 tokens are read as the 4x4 grid in row-major order.
  CHECK(max_abs(make_pe(PEOptions("sinusoidal_2d"), index_positions(16), 16, 1)->matrix(0) - two) == 0.0);

  const auto nd = make_pe(PEOptions("sinusoidal_nd"), grid(), 16, 1)->matrix(0);
  CHECK(max_abs(nd.narrow(1, 0, 8) - row) == 0.0);  // axis 0 (row) first
  CHECK(max_abs(nd.narrow(1, 8, 8) - col) == 0.0);
}

TEST_CASE("the paper's sinusoidal dropout quirk is off by default and can stay on at evaluation") {
  const auto x = puzzle_batch(4, 2);
  auto quiet = make_model(small_model(PEOptions("sinusoidal_2d").sinusoidal_dropout(0.1)), grid(), 1);
  quiet->eval();
  CHECK(max_abs(quiet->classify(x) - quiet->classify(x)) == 0.0);
  auto quirky =
      make_model(small_model(PEOptions("sinusoidal_2d").sinusoidal_dropout(0.1).dropout_at_eval(true)), grid(), 1);
  quirky->eval();
  CHECK(max_abs(quirky->classify(x) - quirky->classify(x)) > 0.0);
}

TEST_CASE("relative bias tables over index offsets and grid offsets with clipping and alibi slopes") {
  auto index = make_pe(PEOptions("relative"), grid(), 16, 2, 3);
  CHECK(index->table(2).sizes() == torch::IntArrayRef({2, 31}));
  CHECK(max_abs(index->table(0)) == 0.0);  // zeros by default: attention starts position-blind
  auto on_grid = make_pe(PEOptions("relative").offsets(PeOffsets::coordinates), grid(), 16, 2);
  CHECK(on_grid->table(0).sizes() == torch::IntArrayRef({2, 49}));
  auto clipped = make_pe(PEOptions("relative").offsets(PeOffsets::coordinates).max_distance(1), grid(), 16, 2);
  CHECK(clipped->table(0).sizes() == torch::IntArrayRef({2, 9}));

  auto alibi = make_pe(PEOptions("alibi"), index_positions(6), 8, 2);
  const auto bias = alibi->table(0);
  CHECK(bias[0][1][4].item<double>() == Approx(-3.0 / 16.0));
  CHECK(bias[1][4][1].item<double>() == Approx(-3.0 / 256.0));
}

TEST_CASE("a learned PE per block is separate and a shared one is one tensor for all blocks") {
  auto per_block = make_model(small_model(PEOptions("learned")), grid(), 5);
  const auto m = per_block->pe_matrices();
  REQUIRE(m.size() == 2);
  CHECK(max_abs(m[0] - m[1]) > 0.0);
  auto shared = make_model(small_model(PEOptions("learned").placement(PePlacement::shared)), grid(), 5);
  CHECK(shared->encoder->pe().parameters().size() == 1);
}
