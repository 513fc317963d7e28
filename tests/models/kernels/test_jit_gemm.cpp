// The chunk products of the fused layers (models/kernels/jit_gemm.hpp, through rows::gemm): generated kernels against a
// product in double, on the shapes the layers use and on awkward ones (tails, leading dimensions wider than the
// rows, k of 1), both transposes of A, beta 0 and 1; the calls they do not cover falling back to BLAS; and the
// slice transposes; the generated bf16 conversion.
#include "cpu/bfloat16_bits.hpp"
#include "models/kernels/jit_gemm.hpp"
#include "models/kernels/row_kernels.hpp"

#include "tests/models/helpers.hpp"

#include <catch2/catch.hpp>

#include <array>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

using loci::models::rows::Dim;
namespace test = loci::models::test;
namespace rows = loci::models::rows;

namespace {

struct Shape {
  Dim m, n, k;
  bool trans_a, trans_b;
  float alpha, beta;
  Dim pad;  // extra columns in every leading dimension
};

// C = alpha op(A) op(B) + beta C in double, row-major.
std::vector<float> reference(const Shape& s, const std::vector<float>& a, Dim lda, const std::vector<float>& b, Dim ldb,
                             std::vector<float> c, Dim ldc) {
  for (Dim i = 0; i < s.m; ++i)
    for (Dim j = 0; j < s.n; ++j) {
      double sum = 0;
      for (Dim p = 0; p < s.k; ++p) {
        const double x = s.trans_a ? a[p * lda + i] : a[i * lda + p];
        const double y = s.trans_b ? b[j * ldb + p] : b[p * ldb + j];
        sum += x * y;
      }
      auto& out = c[i * ldc + j];
      out = static_cast<float>(s.alpha * sum + s.beta * out);
    }
  return c;
}

double max_error(const Shape& s, const std::vector<float>& got, const std::vector<float>& want, Dim ldc) {
  double worst = 0;
  for (Dim i = 0; i < s.m; ++i)
    for (Dim j = 0; j < s.n; ++j)
      worst = std::max(worst, static_cast<double>(std::fabs(got[i * ldc + j] - want[i * ldc + j])));
  return worst;
}

}  // namespace

TEST_CASE("chunk products equal a double-precision product to float rounding", "[models][jit_gemm]") {
  const std::vector<Shape> shapes = {
      {256, 256, 64, false, false, 1, 0, 0},      // fc1 forward, weights transposed once
      {256, 64, 256, false, false, 1, 0, 0},      // fc2 forward
      {64, 256, 256, true, false, 1, 1, 0},       // a weight gradient accumulated over chunks
      {256, 64, 256, false, false, 1, 1, 0},      // x's gradient onto the residual's
      {37, 50, 3, false, false, 1, 0, 5},         // tails everywhere, wide leading dimensions
      {13, 7, 1, true, false, 1, 1, 3},           // k of 1, transposed A
      {100, 100, 64, false, true, 0.125f, 0, 0},  // attention scores: BLAS (transposed B, alpha)
      {20, 30, 40, false, false, 1, 0.5f, 2},     // beta 0.5: BLAS
  };
  unsigned seed = 1;
  for (const auto& s : shapes) {
    const Dim lda = (s.trans_a ? s.m : s.k) + s.pad, ldb = (s.trans_b ? s.k : s.n) + s.pad, ldc = s.n + s.pad;
    const auto a = test::normal_values((s.trans_a ? s.k : s.m) * lda, seed++);
    const auto b = test::normal_values((s.trans_b ? s.n : s.k) * ldb, seed++);
    auto c = test::normal_values(s.m * ldc, seed++);
    const auto want = reference(s, a, lda, b, ldb, c, ldc);
    rows::gemm(s.trans_a, s.trans_b, s.m, s.n, s.k, s.alpha, a.data(), lda, b.data(), ldb, s.beta, c.data(), ldc);
    INFO("m " << s.m << " n " << s.n << " k " << s.k << " trans_a " << s.trans_a << " beta " << s.beta);
    // Float rounding of k products of unit normals: a few ulps of sqrt(k).
    CHECK(max_error(s, c, want, ldc) < 2e-5 * (std::sqrt(static_cast<double>(s.k)) + 1) * 4);
    // The padding between rows is left alone.
    for (Dim i = 0; i < s.m; ++i)
      for (Dim j = s.n; j < ldc; ++j) CHECK(c[i * ldc + j] == want[i * ldc + j]);
  }
}

TEST_CASE("chunk products refuse what their kernels do not cover and say what they run on", "[models][jit_gemm]") {
  std::vector<float> a(16, 1.0f), b(16, 1.0f), c(16, 3.0f);
  // beta 0.5 is not a generated kernel's: nothing is computed and the caller goes to BLAS.
  CHECK_FALSE(rows::jit_gemm(false, 4, 4, 4, a.data(), 4, b.data(), 4, 0.5f, c.data(), 4));
  CHECK(c[0] == 3.0f);
  const std::string what = rows::jit_gemm_description();
  const bool generated = what.rfind("libxsmm ", 0) == 0;
  CHECK((generated || what.rfind("none (", 0) == 0));
  if (generated) {
    CHECK(rows::jit_gemm(false, 4, 4, 4, a.data(), 4, b.data(), 4, 0.0f, c.data(), 4));
    CHECK(c[0] == 4.0f);
    // k = 0: C is beta C.
    CHECK(rows::jit_gemm(true, 4, 4, 0, a.data(), 4, b.data(), 4, 0.0f, c.data(), 4));
    CHECK(c[5] == 0.0f);
  }
}

TEST_CASE(
    "on an AVX-512 target libxsmm generates the bf16 conversion, and it rounds to nearest even as the bit "
    "version does",
    "[models][jit_gemm]") {
  const std::string what = rows::jit_gemm_description();
  bool avx512_target = false;
  for (const char* arch : {"(skx)", "(clx)", "(cpx)", "(spr)", "(knl)", "(knm)"})
    avx512_target = avx512_target || what.find(arch) != std::string::npos;
  // 3 rows of 37 inside rows 40 apart: two full vectors and a tail per row, and values that round both ways.
  std::vector<float> in(3 * 40);
  for (std::size_t i = 0; i < in.size(); ++i)
    in[i] = std::ldexp(1.0f + static_cast<float>(i % 97) / 97.0f, static_cast<int>(i % 9) - 4);
  std::vector<std::uint16_t> out(3 * 37, 0xAAAA);
  const bool generated = rows::jit_round_to_bf16(3, 37, in.data(), 40, out.data());
  INFO("libxsmm: " << what);
  CHECK(generated == avx512_target);  // where it has no kernel the caller's portable loop runs instead
  if (generated)
    for (Dim r = 0; r < 3; ++r)
      for (Dim j = 0; j < 37; ++j) CHECK(out[r * 37 + j] == loci::cpu::float_to_bf16(in[r * 40 + j]));
}

TEST_CASE("slice transposes move every element and nothing else", "[models][jit_gemm]") {
  // The attention's k and v slices (100 tokens x 16, rows 192 apart), tails of the kernels' blocks, and one row.
  for (const auto& [r, c, ldi, ldo] : std::vector<std::array<Dim, 4>>{
           {100, 16, 192, 100}, {50, 32, 96, 53}, {7, 3, 3, 7}, {1, 17, 17, 1}, {33, 1, 5, 40}}) {
    CAPTURE(r, c, ldi, ldo);
    const auto in = test::normal_values(r * ldi, 7);
    std::vector<float> out(static_cast<std::size_t>(c * ldo), -9.0f);
    rows::jit_transpose(r, c, in.data(), ldi, out.data(), ldo);
    for (Dim j = 0; j < c; ++j)
      for (Dim i = 0; i < ldo; ++i) {
        CAPTURE(i, j);
        CHECK(out[j * ldo + i] == (i < r ? in[i * ldi + j] : -9.0f));  // padding past the rows untouched
      }
  }
}
