// The chunked MLP (models/kernels/fused_mlp.hpp), out_proj + residual + LayerNorm and the plain linear layer
// (models/kernels/fused_linear_norm.hpp) against the same layers written with ATen's own ops.

#include "models/kernels/fused_linear_norm.hpp"
#include "models/kernels/fused_mlp.hpp"
#include "tests/models/helpers.hpp"

#include <ATen/Parallel.h>
#include <catch2/catch.hpp>

using namespace loci::models;

namespace {

using loci::models::test::max_abs;

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
  for (auto [from, to] :
       {std::pair{&leaves.x, &l.x}, {&leaves.w1, &l.w1}, {&leaves.b1, &l.b1}, {&leaves.w2, &l.w2}, {&leaves.b2, &l.b2}})
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

TEST_CASE("the chunked MLP with the residual and LayerNorm gives ATen's LayerNorm(x + mlp(x)) and its gradients") {
  const auto leaves = draw(3, 123, 64, 256, 12);
  auto gen = make_generator(13);
  const auto gamma0 = 1.0 + torch::randn({64}, gen) * 0.3, beta0 = torch::randn({64}, gen) * 0.3;
  const auto grad = torch::randn({3, 123, 64}, gen);
  for (bool gelu2 : {true, false}) {
    INFO("gelu after fc2: " << gelu2);
    auto once = [&](bool fused) {
      auto x = leaves.x.detach().clone().requires_grad_(true), w1 = leaves.w1.detach().clone().requires_grad_(true);
      auto gamma = gamma0.clone().requires_grad_(true), beta = beta0.clone().requires_grad_(true);
      const MlpLayers layers{w1, leaves.b1.detach(), leaves.w2.detach(), leaves.b2.detach()};
      torch::Tensor out;
      if (fused) {
        out = fused_mlp(x, layers, gelu2, {gamma, beta, 1e-5});
      } else {
        auto h = torch::linear(torch::gelu(torch::linear(x, layers.w1, layers.b1)), layers.w2, layers.b2);
        if (gelu2) h = torch::gelu(h);
        out = torch::layer_norm(h + x, {64}, gamma, beta, 1e-5);
      }
      out.backward(grad);
      return std::vector<torch::Tensor>{out.detach(), x.grad(), w1.grad(), gamma.grad(), beta.grad()};
    };
    const auto ours = once(true), ref = once(false);
    const std::vector<double> bounds{1e-5, 1e-4, 1e-3, 1e-3, 1e-3};
    for (std::size_t i = 0; i < ours.size(); ++i) {
      INFO("output " << i);
      CHECK(max_abs(ours[i] - ref[i]) < bounds[i]);
    }
    CHECK(max_abs(ref[3]) > 1.0);
  }
}

TEST_CASE("the chunked MLP falls back to ATen's ops for other dtypes") {
  const auto leaves = draw(1, 5, 8, 32, 11);
  auto cast = [](const torch::Tensor& t) { return t.detach().to(torch::kFloat64); };
  const auto out =
      fused_mlp(cast(leaves.x), {cast(leaves.w1), cast(leaves.b1), cast(leaves.w2), cast(leaves.b2)}, true);
  CHECK(out.scalar_type() == torch::kFloat64);
  const auto ref = run(leaves, true, false, torch::ones({1, 5, 8}));
  CHECK(max_abs(out.to(torch::kFloat32) - ref.out) < 1e-5);
}

TEST_CASE("out_proj, residual and LayerNorm in one pass give ATen's and their gradients, on any number of threads") {
  auto gen = make_generator(21);
  // 2 x 700 rows: several chunks of 256 and slices of 1024, and a partial last one.
  auto leaf = [&](std::vector<int64_t> shape, double scale, double shift = 0.0) {
    return (torch::randn(shape, gen) * scale + shift).requires_grad_(true);
  };
  const std::vector<torch::Tensor> leaves{leaf({2, 700, 48}, 1.0), leaf({2, 700, 64}, 1.0), leaf({64, 48}, 0.15),
                                          leaf({64}, 0.3),         leaf({64}, 0.3, 1.0),    leaf({64}, 0.3)};
  const auto grad = torch::randn({2, 700, 64}, gen);
  auto once = [&](bool fused) {
    std::vector<torch::Tensor> l;
    for (const auto& t : leaves) l.push_back(t.detach().clone().requires_grad_(true));
    auto out = fused ? fused_linear_norm(l[0], l[1], {l[2], l[3], l[4], l[5], 1e-5})
                     : torch::layer_norm(torch::linear(l[0], l[2], l[3]) + l[1], {64}, l[4], l[5], 1e-5);
    out.backward(grad);
    std::vector<torch::Tensor> r{out.detach()};
    for (const auto& t : l) r.push_back(t.grad());
    return r;
  };
  const auto ref = once(false);
  const int threads = at::get_num_threads();
  at::set_num_threads(1);
  const auto one = once(true);
  at::set_num_threads(2);
  const auto two = once(true);
  at::set_num_threads(threads);
  const std::vector<double> bounds{1e-5, 1e-4, 1e-4, 1e-3, 1e-3, 1e-3, 1e-3};
  for (std::size_t i = 0; i < ref.size(); ++i) {
    INFO("output " << i);
    CHECK(one[i].sizes() == ref[i].sizes());
    CHECK(max_abs(one[i] - ref[i]) < bounds[i]);
    CHECK(one[i].equal(two[i]));
  }
  CHECK(max_abs(ref[3]) > 1.0);
  torch::NoGradGuard no_grad;
  CHECK(fused_linear_norm(leaves[0], leaves[1], {leaves[2], leaves[3], leaves[4], leaves[5], 1e-5}).equal(one[0]));
}

TEST_CASE("the chunked linear layer gives ATen's linear and its gradients, on any number of threads") {
  auto gen = make_generator(23);
  // 3 x 500 rows into 40 outputs: several chunks and slices, a partial last one; and the input without a gradient
  // (an embedding of data), where only the weight's and bias's are computed.
  auto leaf = [&](std::vector<int64_t> shape, double scale) {
    return (torch::randn(shape, gen) * scale).requires_grad_(true);
  };
  const std::vector<torch::Tensor> leaves{leaf({3, 500, 24}, 1.0), leaf({40, 24}, 0.2), leaf({40}, 0.3)};
  const auto grad = torch::randn({3, 500, 40}, gen);
  auto once = [&](bool fused, bool input_grad) {
    std::vector<torch::Tensor> l;
    for (const auto& t : leaves) l.push_back(t.detach().clone().requires_grad_(true));
    l[0].requires_grad_(input_grad);
    auto out = fused ? fused_linear(l[0], l[1], l[2]) : torch::linear(l[0], l[1], l[2]);
    out.backward(grad);
    std::vector<torch::Tensor> r{out.detach()};
    for (const auto& t : l) r.push_back(t.grad());
    return r;
  };
  const auto ref = once(false, true);
  const int threads = at::get_num_threads();
  at::set_num_threads(1);
  const auto one = once(true, true);
  at::set_num_threads(2);
  const auto two = once(true, true);
  const auto data_only = once(true, false);
  at::set_num_threads(threads);
  const std::vector<double> bounds{1e-5, 1e-4, 1e-3, 1e-3};
  for (std::size_t i = 0; i < ref.size(); ++i) {
    INFO("output " << i);
    CHECK(one[i].sizes() == ref[i].sizes());
    CHECK(max_abs(one[i] - ref[i]) < bounds[i]);
    CHECK(one[i].equal(two[i]));
  }
  CHECK(max_abs(ref[2]) > 1.0);
  CHECK_FALSE(data_only[1].defined());
  CHECK(data_only[2].equal(two[2]));
  CHECK(data_only[3].equal(two[3]));
  torch::NoGradGuard no_grad;
  CHECK(fused_linear(leaves[0], leaves[1], leaves[2]).equal(one[0]));
  // Other dtypes and a layer without a bias go to ATen's linear.
  const auto wide = fused_linear(leaves[0].to(torch::kFloat64), leaves[1].to(torch::kFloat64), {});
  CHECK(wide.scalar_type() == torch::kFloat64);
  CHECK(max_abs(wide.to(torch::kFloat32) - torch::linear(leaves[0], leaves[1])) < 1e-5);
}
