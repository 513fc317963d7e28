// The chunked MLP (models/fused_mlp.hpp) against the same MLP written with ATen's own ops.

#include "helpers.hpp"
#include "models/fused_mlp.hpp"

#include <ATen/Parallel.h>
#include <catch2/catch.hpp>

using namespace loci::models;

namespace {

double max_abs(const torch::Tensor& t) { return t.abs().max().item<double>(); }

struct Leaves {
  torch::Tensor x, w1, b1, w2, b2;
};

Leaves draw(int64_t batch, int64_t tokens, int64_t d, int64_t hidden, uint64_t seed) {
  auto gen = make_generator(seed);
  auto leaf = [&](std::vector<int64_t> shape, double scale) {
    return (torch::randn(shape, gen) * scale).requires_grad_(true);
  };
  return {leaf({batch, tokens, d}, 1.0), leaf({hidden, d}, 1.0 / std::sqrt(double(d))), leaf({hidden}, 0.5),
          leaf({d, hidden}, 1.0 / std::sqrt(double(hidden))), leaf({d}, 0.5)};
}

struct Result {
  torch::Tensor out, gx, gw1, gb1, gw2, gb2;
};

Result run(const Leaves& leaves, bool gelu2, bool fused, const torch::Tensor& grad) {
  Leaves l;
  for (auto [from, to] : {std::pair{&leaves.x, &l.x}, {&leaves.w1, &l.w1}, {&leaves.b1, &l.b1}, {&leaves.w2, &l.w2},
                          {&leaves.b2, &l.b2}})
    *to = from->detach().clone().requires_grad_(true);
  torch::Tensor out;
  if (fused) {
    out = fused_mlp(l.x, {l.w1, l.b1, l.w2, l.b2}, gelu2);
  } else {
    out = torch::linear(torch::gelu(torch::linear(l.x, l.w1, l.b1)), l.w2, l.b2);
    if (gelu2) out = torch::gelu(out);
  }
  out.backward(grad);
  return {out.detach(), l.x.grad(), l.w1.grad(), l.b1.grad(), l.w2.grad(), l.b2.grad()};
}

bool same_bytes(const Result& a, const Result& b) {
  return a.out.equal(b.out) && a.gx.equal(b.gx) && a.gw1.equal(b.gw1) && a.gb1.equal(b.gb1) && a.gw2.equal(b.gw2) &&
         a.gb2.equal(b.gb2);
}

}  // namespace

TEST_CASE("the chunked MLP gives ATen's MLP and its gradients") {
  // 3 x 123 rows: more than one chunk of 256 rows (hidden 256) and a partial last one.
  const auto leaves = draw(3, 123, 64, 256, 7);
  const auto grad = torch::randn({3, 123, 64}, make_generator(8));
  for (bool gelu2 : {true, false}) {
    INFO("gelu after fc2: " << gelu2);
    const auto ours = run(leaves, gelu2, true, grad), ref = run(leaves, gelu2, false, grad);
    CHECK(ours.out.sizes() == ref.out.sizes());
    CHECK(max_abs(ours.out - ref.out) < 1e-5);
    CHECK(max_abs(ours.gx - ref.gx) < 1e-4);
    CHECK(max_abs(ours.gw1 - ref.gw1) < 1e-3);
    CHECK(max_abs(ours.gb1 - ref.gb1) < 1e-3);
    CHECK(max_abs(ours.gw2 - ref.gw2) < 1e-3);
    CHECK(max_abs(ours.gb2 - ref.gb2) < 1e-3);
    // Gradients this size sum ~370 rows of O(1) terms: the bounds above are tight relative to them.
    CHECK(max_abs(ref.gw1) > 1.0);
  }
}

TEST_CASE("the chunked MLP gives the same bytes on one thread and on two, with or without autograd") {
  const auto leaves = draw(2, 301, 16, 640, 9);  // hidden 640: chunks of 102 rows
  const auto grad = torch::randn({2, 301, 16}, make_generator(10));
  const int threads = at::get_num_threads();
  at::set_num_threads(1);
  const auto one = run(leaves, true, true, grad);
  at::set_num_threads(2);
  const auto two = run(leaves, true, true, grad);
  at::set_num_threads(threads);
  CHECK(same_bytes(one, two));
  torch::NoGradGuard no_grad;
  CHECK(fused_mlp(leaves.x, {leaves.w1, leaves.b1, leaves.w2, leaves.b2}, true).equal(one.out));
}

TEST_CASE("the chunked MLP falls back to ATen's ops for other dtypes") {
  const auto leaves = draw(1, 5, 8, 32, 11);
  auto cast = [](const torch::Tensor& t) { return t.detach().to(torch::kFloat64); };
  const auto out = fused_mlp(cast(leaves.x), {cast(leaves.w1), cast(leaves.b1), cast(leaves.w2), cast(leaves.b2)}, true);
  CHECK(out.scalar_type() == torch::kFloat64);
  const auto ref = run(leaves, true, false, torch::ones({1, 5, 8}));
  CHECK(max_abs(out.to(torch::kFloat32) - ref.out) < 1e-5);
}
