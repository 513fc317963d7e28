// The row reductions of the fused layers (models/kernels/lane_sums.hpp): their fixed order, and the library's
// multiversioned LayerNorm rows (AVX-512, AVX2 or baseline, whichever this CPU runs, row lengths with and without a
// tail of lanes) against plain code of the same order compiled for the baseline here. Those agree to rounding, not to
// the bit: the wide clones may fuse a multiply and an add (GCC contracts in C++ by default), the baseline cannot.
#include "models/kernels/lane_sums.hpp"
#include "models/kernels/row_kernels.hpp"

#include "tests/models/helpers.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <vector>

using loci::models::rows::Dim;
namespace test = loci::models::test;
namespace lanes = loci::models::lanes;

namespace {

// The order lane_sums.hpp documents, written out: lane j % 16 adds x[j] in index order, then halves fold pairwise.
float sum_in_lane_order(const std::vector<float>& x) {
  float acc[16] = {};
  for (std::size_t j = 0; j < x.size(); ++j) acc[j % 16] += x[j];
  for (int width = 8; width > 0; width /= 2)
    for (int l = 0; l < width; ++l) acc[l] += acc[l + width];
  return acc[0];
}

// Largest |a - b| relative to max(|b|, 1).
double max_rel(const std::vector<float>& a, const std::vector<float>& b) {
  REQUIRE(a.size() == b.size());
  double worst = 0;
  for (std::size_t i = 0; i < a.size(); ++i)
    worst = std::max(worst,
                     std::abs(static_cast<double>(a[i]) - b[i]) / std::max(1.0, std::abs(static_cast<double>(b[i]))));
  return worst;
}

}  // namespace

TEST_CASE("lane sums add in their documented order, close to the exact sum, and lane max is the maximum") {
  for (const Dim n : {1, 2, 15, 16, 17, 31, 64, 100, 160, 1001}) {
    const auto x = test::normal_values(n, static_cast<unsigned>(n), 0.5f, 2.0f);
    const float s = lanes::sum(n, [&](Dim j) { return x[static_cast<std::size_t>(j)]; });
    CHECK(s == sum_in_lane_order(x));
    double exact = 0, magnitude = 0;
    for (const float v : x) exact += v, magnitude += std::abs(v);
    CHECK(std::abs(s - exact) <= 1e-6 * magnitude);
    CHECK(lanes::max(x.data(), n) == *std::max_element(x.begin(), x.end()));
    float a = 0, b = 0;
    lanes::sum2(
        n, [&](Dim j) { return std::pair<float, float>(x[j], 2 * x[j]); }, a, b);
    CHECK(a == s);
    CHECK(b == 2 * s);  // doubling is exact, so the pair's second sum is exactly twice the first
  }
}

TEST_CASE("LayerNorm rows on this CPU's instruction set match plain code of the same order to float rounding") {
  const Dim m = 7;
  for (const Dim n : {5, 16, 64, 100, 160}) {
    auto draw = [](Dim count, unsigned seed) { return test::normal_values(count, seed, 0.5f, 2.0f); };
    const auto x = draw(m * n, 1), residual = draw(m * n, 2), gamma = draw(n, 3), beta = draw(n, 4);
    const float eps = 1e-5f;
    std::vector<float> rows = x, xhat(x.size()), rstd(m);
    loci::models::rows::norm_rows(rows.data(), residual.data(), m, n, gamma.data(), beta.data(), eps, xhat.data(),
                                  rstd.data());
    std::vector<float> want(x.size()), want_xhat(x.size()), want_rstd(m);
    for (Dim r = 0; r < m; ++r) {
      std::vector<float> row(static_cast<std::size_t>(n));
      for (Dim j = 0; j < n; ++j) row[j] = x[r * n + j] + residual[r * n + j];
      const float mean = sum_in_lane_order(row) / static_cast<float>(n);
      std::vector<float> squares(row.size());
      for (Dim j = 0; j < n; ++j) squares[j] = (row[j] - mean) * (row[j] - mean);
      const float inv = 1.0f / std::sqrt(sum_in_lane_order(squares) / static_cast<float>(n) + eps);
      for (Dim j = 0; j < n; ++j) {
        want_xhat[r * n + j] = (row[j] - mean) * inv;
        want[r * n + j] = want_xhat[r * n + j] * gamma[j] + beta[j];
      }
      want_rstd[r] = inv;
    }
    CHECK(max_rel(rows, want) < 2e-6);
    CHECK(max_rel(xhat, want_xhat) < 2e-6);
    CHECK(max_rel(rstd, want_rstd) < 2e-6);
  }
}
