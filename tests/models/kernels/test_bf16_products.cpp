// bf16 products of the fused layers (models/kernels/bf16_products.hpp, train.bf16_products: fused): the product of
// operands rounded to bfloat16 against the same in double, the rounding itself, and the fused layers under the scope
// (close to float32, not equal to it, the backward keeping the forward's choice, the same bytes on one thread and on
// two). On a CPU whose oneDNN has no bfloat16 arithmetic there is nothing to run, and the tests say so.
#include "cpu/bfloat16_bits.hpp"
#include "models/kernels/bf16_products.hpp"
#include "models/kernels/fused_linear_norm.hpp"
#include "models/kernels/fused_mlp.hpp"
#include "models/kernels/row_kernels.hpp"
#include "tests/models/helpers.hpp"

#include <ATen/Parallel.h>
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <optional>
#include <thread>
#include <vector>

using namespace loci::models;
using loci::cpu::bf16_to_float;
using loci::cpu::float_to_bf16;
namespace rows = loci::models::rows;

namespace {

using loci::models::test::max_abs;

bool engine_here() {
  if (!bf16_products_engine().empty()) return true;
  WARN("no bf16 products here (oneDNN without AVX512_BF16 or AMX): nothing to check");
  return false;
}

float rounded(float v) { return bf16_to_float(float_to_bf16(v)); }

struct ProductShape {
  rows::Dim m, n, k;
  bool trans_a, trans_b;
  float alpha, beta;
  rows::Dim pad;  // extra columns in every leading dimension
  bool pre_rounded_b;
};

}  // namespace

TEST_CASE(
    "bf16 products are switched on per thread, as autocast is: a scope on one thread leaves another thread's "
    "layers in float32",
    "[models][bf16]") {
  CHECK_FALSE(bf16_products_on());
  bool on_other_thread = true, on_inner_thread = false;
  {
    const Bf16ProductsScope scope;
    CHECK(bf16_products_on());
    std::thread([&] { on_other_thread = bf16_products_on(); }).join();
    std::thread([&] {
      const Bf16ProductsScope own;
      on_inner_thread = bf16_products_on();
    }).join();
    CHECK(bf16_products_on());  // the other thread's scope ending leaves this one's on
  }
  CHECK_FALSE(on_other_thread);
  CHECK(on_inner_thread);
  CHECK_FALSE(bf16_products_on());
}

TEST_CASE("bf16 products equal a double product of the operands rounded to bfloat16", "[models][bf16]") {
  if (!engine_here()) return;
  const std::vector<ProductShape> shapes = {
      {102, 640, 160, false, false, 1, 0, 0, true},    // fc1 forward: weights rounded once
      {102, 160, 640, false, false, 1, 1, 0, true},    // x's gradient onto the residual's
      {160, 640, 102, true, false, 1, 1, 0, false},    // a weight gradient: Aᵀ, summed onto the share
      {37, 29, 53, false, false, 1, 0, 3, false},      // tails and wide leading dimensions
      {37, 29, 53, true, true, 0.5f, 0.5f, 2, false},  // both transposed, alpha and beta other than 0 and 1
      {5, 7, 0, false, false, 1, 0.5f, 0, false},      // nothing to sum: beta C
      {1, 1, 1, false, false, 1, 0, 0, false},
  };
  for (const auto& s : shapes) {
    INFO("m " << s.m << " n " << s.n << " k " << s.k << " trans " << s.trans_a << s.trans_b << " beta " << s.beta);
    const rows::Dim a_rows = s.trans_a ? s.k : s.m, a_cols = (s.trans_a ? s.m : s.k) + s.pad;
    const rows::Dim b_rows = s.trans_b ? s.n : s.k, b_cols = (s.trans_b ? s.k : s.n) + s.pad;
    const rows::Dim ldc = s.n + s.pad;
    const auto a = test::normal_values(a_rows * a_cols, 1), b = test::normal_values(b_rows * b_cols, 2);
    auto c = test::normal_values(s.m * ldc, 3);
    std::vector<float> want = c;
    for (rows::Dim i = 0; i < s.m; ++i)
      for (rows::Dim j = 0; j < s.n; ++j) {
        double sum = 0;
        for (rows::Dim p = 0; p < s.k; ++p)
          sum += static_cast<double>(rounded(s.trans_a ? a[p * a_cols + i] : a[i * a_cols + p])) *
                 rounded(s.trans_b ? b[j * b_cols + p] : b[p * b_cols + j]);
        want[i * ldc + j] = static_cast<float>(s.alpha * sum + s.beta * c[i * ldc + j]);
      }
    std::vector<std::uint16_t> b16;
    if (s.pre_rounded_b) {
      b16.resize(b.size());
      rows::round_to_bf16(1, static_cast<rows::Dim>(b.size()), b.data(), 0, b16.data());
    }
    rows::bf16_gemm(s.trans_a, s.trans_b, s.m, s.n, s.k, s.alpha, a.data(), a_cols, b.data(),
                    b16.empty() ? nullptr : b16.data(), b_cols, s.beta, c.data(), ldc);
    double worst = 0;
    for (rows::Dim i = 0; i < s.m; ++i)
      for (rows::Dim j = 0; j < s.n; ++j)
        worst = std::max(worst, std::fabs(static_cast<double>(c[i * ldc + j]) - want[i * ldc + j]) /
                                    std::sqrt(static_cast<double>(s.k) + 1.0));
    CHECK(worst < 1e-4);  // float32 sums of k unit-variance products: rounding grows like sqrt(k)
  }
}

TEST_CASE("rounding to bfloat16 rounds to nearest even, keeps NaN and infinities, on every tail length",
          "[models][bf16]") {
  std::vector<float> values = test::normal_values(300, 4, 0.0f, 100.0f);
  // ties: halfway between two bfloat16 values, to the even one either way
  values[0] = bf16_to_float(0x3F80) + std::ldexp(1.0f, -8);
  values[1] = bf16_to_float(0x3F81) + std::ldexp(1.0f, -8);
  values[2] = std::numeric_limits<float>::quiet_NaN();
  values[3] = std::numeric_limits<float>::infinity();
  values[4] = -std::numeric_limits<float>::infinity();
  values[5] = 0.0f;
  values[6] = -0.0f;
  values[7] = std::numeric_limits<float>::max();  // rounds up to infinity, as float_to_bf16
  for (rows::Dim cols : {1, 15, 16, 17, 31, 32, 33, 70}) {
    INFO("columns " << cols);
    const rows::Dim rows_n = 3, ld = cols + 5;
    std::vector<std::uint16_t> got(static_cast<std::size_t>(rows_n * cols), 0xAAAA);
    rows::round_to_bf16(rows_n, cols, values.data(), ld, got.data());
    for (rows::Dim r = 0; r < rows_n; ++r)
      for (rows::Dim j = 0; j < cols; ++j) {
        const float v = values[static_cast<std::size_t>(r * ld + j)];
        const std::uint16_t g = got[static_cast<std::size_t>(r * cols + j)];
        if (std::isnan(v))
          CHECK(std::isnan(bf16_to_float(g)));
        else
          CHECK(g == float_to_bf16(v));
      }
  }
  CHECK(float_to_bf16(values[0]) == 0x3F80);
  CHECK(float_to_bf16(values[1]) == 0x3F82);
}

TEST_CASE(
    "rounding to bfloat16 takes a float32 denormal to its rounded value or, on AVX512_BF16's instruction, to "
    "zero of its sign",
    "[models][bf16]") {
  const std::vector<float> denormals{1e-39f, -1e-40f, std::numeric_limits<float>::denorm_min(), 1.1e-38f};
  std::vector<std::uint16_t> got(denormals.size());
  rows::round_to_bf16(1, static_cast<rows::Dim>(denormals.size()), denormals.data(), 0, got.data());
  for (std::size_t i = 0; i < denormals.size(); ++i) {
    INFO("value " << denormals[i]);
    const std::uint16_t signed_zero = std::signbit(denormals[i]) ? 0x8000 : 0x0000;
    CHECK((got[i] == float_to_bf16(denormals[i]) || got[i] == signed_zero));
  }
}

TEST_CASE(
    "the fused layers under bf16 products stay close to float32, keep the forward's choice in backward, and "
    "give the same bytes on one thread and on two",
    "[models][bf16]") {
  if (!engine_here()) return;
  auto gen = make_generator(31);
  auto leaf = [&](std::vector<int64_t> shape, double scale, double shift = 0.0) {
    return (torch::randn(shape, gen) * scale + shift).requires_grad_(true);
  };
  // 2 x 301 rows: several chunks of every layer and a partial last one; hidden 640 as in the paper's model.
  const std::vector<torch::Tensor> leaves{leaf({2, 301, 32}, 1.0), leaf({640, 32}, 0.18), leaf({640}, 0.5),
                                          leaf({32, 640}, 0.04),   leaf({32}, 0.5),       leaf({32}, 0.3, 1.0),
                                          leaf({32}, 0.3),         leaf({32, 32}, 0.18),  leaf({32}, 0.3)};
  const auto grad = torch::randn({2, 301, 32}, gen);
  // mode 0: float32; 1: bf16 for forward and backward; 2: bf16 for the forward only, as the trainer does it.
  auto once = [&](int mode) {
    std::vector<torch::Tensor> l;
    for (const auto& t : leaves) l.push_back(t.detach().clone().requires_grad_(true));
    torch::Tensor out;
    {
      std::optional<Bf16ProductsScope> scope;
      if (mode > 0) scope.emplace();
      const auto h = fused_linear(l[0], l[7], l[8]);
      const auto n = fused_linear_norm(h, l[0], {l[7], l[8], l[5], l[6], 1e-5});
      out = fused_mlp(n, {l[1], l[2], l[3], l[4]}, true, {l[5], l[6], 1e-5});
      if (mode == 1) out.backward(grad);
    }
    if (mode != 1) out.backward(grad);
    std::vector<torch::Tensor> r{out.detach()};
    for (const auto& t : l) r.push_back(t.grad());
    return r;
  };
  const auto fp32 = once(0);
  const int threads = at::get_num_threads();
  at::set_num_threads(1);
  const auto one = once(2);
  const auto whole = once(1);
  at::set_num_threads(2);
  const auto two = once(2);
  at::set_num_threads(threads);
  bool any_differs = false;
  for (std::size_t i = 0; i < fp32.size(); ++i) {
    INFO("output " << i);
    // bfloat16 keeps 8 bits: each product's operands within 2^-8 of their value
    CHECK(max_abs(one[i] - fp32[i]) <= 0.03 * max_abs(fp32[i]));
    any_differs = any_differs || !one[i].equal(fp32[i]);
    CHECK(one[i].equal(whole[i]));
    CHECK(one[i].equal(two[i]));
  }
  CHECK(any_differs);
}
