// The one-sample-at-a-time attention (models/kernels/attention_core.hpp) against the same attention in ATen's ops.

#include "models/kernels/attention_core.hpp"
#include "models/model.hpp"
#include "tests/models/helpers.hpp"

#include <ATen/Parallel.h>
#include <ATen/autocast_mode.h>
#include <catch2/catch.hpp>

using namespace loci::models;

namespace {

using loci::models::test::max_abs;

torch::Tensor reference(const torch::Tensor& qkv, int64_t heads, double scale, const torch::Tensor& rows) {
  const auto B = qkv.size(0), N = qkv.size(1), d = qkv.size(2) / 3, dh = d / heads;
  auto parts = qkv.chunk(3, -1);
  auto split = [&](const torch::Tensor& t) { return t.reshape({B, N, heads, dh}).transpose(1, 2); };
  auto q = split(parts[0]), k = split(parts[1]), v = split(parts[2]);
  auto scores = torch::matmul(q, k.transpose(-2, -1)) * scale;
  auto R = N;
  if (rows.defined()) {
    R = rows.size(1);
    scores = scores.gather(2, rows.view({B, 1, R, 1}).expand({B, heads, R, N}));
  }
  return torch::matmul(torch::softmax(scores, -1), v).transpose(1, 2).reshape({B, R, d});
}

struct Run {
  torch::Tensor out, grad;
};

Run run(const torch::Tensor& qkv0, int64_t heads, const torch::Tensor& rows, bool ours, const torch::Tensor& g) {
  auto qkv = qkv0.detach().clone().requires_grad_(true);
  const double scale = 1.0 / std::sqrt(double(qkv.size(2) / 3 / heads));
  auto out = ours ? attention_core(qkv, heads, scale, rows) : reference(qkv, heads, scale, rows);
  out.backward(g);
  return {out.detach(), qkv.grad()};
}

// Distinct rows of each sample, in order, as the masked-regression model asks for them.
torch::Tensor some_rows(int64_t batch, int64_t tokens, int64_t count, uint64_t seed) {
  auto gen = make_generator(seed);
  return std::get<0>(torch::rand({batch, tokens}, gen).argsort(int64_t{1}).narrow(1, 0, count).sort(1));
}

}  // namespace

TEST_CASE("attention from the joint projection gives ATen's attention and its gradient, heads and query rows") {
  auto gen = make_generator(3);
  struct Case {
    int64_t batch, tokens, d, heads, rows;  // rows 0: all
  };
  for (const auto& c : {Case{3, 17, 12, 1, 0}, Case{2, 100, 64, 1, 50}, Case{4, 16, 24, 2, 0}, Case{4, 16, 24, 3, 1}}) {
    INFO("B " << c.batch << " N " << c.tokens << " d " << c.d << " heads " << c.heads << " rows " << c.rows);
    const auto qkv = torch::randn({c.batch, c.tokens, 3 * c.d}, gen) * 2.0;
    const auto rows = c.rows > 0 ? some_rows(c.batch, c.tokens, c.rows, 4) : torch::Tensor();
    const auto g = torch::randn({c.batch, c.rows > 0 ? c.rows : c.tokens, c.d}, gen);
    const auto ours = run(qkv, c.heads, rows, true, g), ref = run(qkv, c.heads, rows, false, g);
    CHECK(max_abs(ours.out - ref.out) < 1e-5);
    CHECK(max_abs(ours.grad - ref.grad) < 1e-4);
    CHECK(max_abs(ref.grad) > 0.1);
    torch::NoGradGuard no_grad;
    CHECK(attention_core(qkv, c.heads, 1.0 / std::sqrt(double(c.d / c.heads)), rows).equal(ours.out));
  }
}

TEST_CASE("attention from the joint projection gives the same bytes on one thread and on two") {
  auto gen = make_generator(5);
  const auto qkv = torch::randn({5, 100, 192}, gen);
  const auto rows = some_rows(5, 100, 50, 6);
  const auto g = torch::randn({5, 50, 64}, gen);
  const int threads = at::get_num_threads();
  at::set_num_threads(1);
  const auto one = run(qkv, 1, rows, true, g);
  at::set_num_threads(2);
  const auto two = run(qkv, 1, rows, true, g);
  at::set_num_threads(threads);
  CHECK(one.out.equal(two.out));
  CHECK(one.grad.equal(two.grad));
}

TEST_CASE("attention from the joint projection keeps NaN as NaN") {
  auto qkv = torch::randn({1, 4, 6});
  qkv[0][2][0] = std::numeric_limits<float>::quiet_NaN();  // a query: its row of weights is NaN
  torch::NoGradGuard no_grad;
  const auto out = attention_core(qkv, 1, 0.5, {});
  CHECK(out[0][2].isnan().all().item<bool>());
  CHECK(!out[0][1].isnan().any().item<bool>());
}

TEST_CASE("under bf16 autocast the attention's products run in float32 on the bf16 projection, with gradients") {
  torch::manual_seed(5);
  SelfAttention attention(AttentionOptions(24, 2));
  const auto x = torch::randn({3, 16, 24}, make_generator(6));
  const auto rows = some_rows(3, 16, 4, 7);
  const BlockPE none;
  // fp32: the reference, on the same weights.
  const auto want = attention->attend(x, none, rows);
  at::autocast::set_autocast_cpu_dtype(at::kBFloat16);
  at::autocast::set_cpu_enabled(true);
  const auto got = attention->attend(x, none, rows);
  const auto joint = torch::linear(x, attention->in_proj->weight, attention->in_proj->bias);  // bf16 under autocast
  at::autocast::set_cpu_enabled(false);
  at::autocast::clear_cache();
  REQUIRE(joint.scalar_type() == torch::kBFloat16);
  CHECK(got.scalar_type() == torch::kFloat32);
  // Exactly attention_core on the bf16 projection widened to float32, and within bf16 rounding of fp32 attention.
  CHECK(torch::equal(got, attention_core(joint.to(torch::kFloat32), 2, 1.0 / std::sqrt(12.0), rows)));
  CHECK(max_abs(got - want) < 0.05 * std::max(1.0, max_abs(want)));
  CHECK(!at::autocast::is_cpu_enabled());
  // The gradient reaches the projection's weights through the bf16 cast.
  got.sum().backward();
  const auto g = attention->in_proj->weight.grad();
  REQUIRE(g.defined());
  CHECK(torch::isfinite(g).all().item<bool>());
  CHECK(max_abs(g) > 0);
}
