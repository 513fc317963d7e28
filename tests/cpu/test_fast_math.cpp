// cpu/fast_math.hpp: the exp, ln and logistic kernels that sim's models and the fused layers share.
#include "cpu/fast_math.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <limits>

using namespace loci::cpu;

TEST_CASE("exp_fast and expf_fast agree with std::exp to about an ulp and saturate", "[cpu]") {
  double worst = 0;
  for (double x = -708; x <= 708; x += 0.0137) {
    const double e = std::exp(x);
    worst = std::max(worst, std::abs(exp_fast(x) - e) / e);
  }
  CHECK(worst < 5e-16);
  CHECK(exp_fast(0) == 1.0);
  CHECK(std::isfinite(exp_fast(1e6)));
  CHECK(exp_fast(-1e6) < 1e-300);
  CHECK(std::isnan(exp_fast(std::numeric_limits<double>::quiet_NaN())));
  CHECK(std::isnan(exp_fast(std::numeric_limits<double>::infinity())));
  double worst_float = 0;
  for (double x = -87; x <= 88; x += 0.0137) {
    const double e = std::exp(static_cast<double>(static_cast<float>(x)));
    worst_float = std::max(worst_float, std::abs(expf_fast(static_cast<float>(x)) - e) / e);
  }
  CHECK(worst_float < 2.5e-7);  // about 2 ulp of float
  CHECK(expf_fast(0.0f) == 1.0f);
  CHECK(std::isfinite(expf_fast(1e6f)));
  CHECK(expf_fast(-1e6f) < 1e-37f);
  CHECK(std::isnan(expf_fast(std::numeric_limits<float>::quiet_NaN())));
  CHECK(logistic_float(0.0f) == 0.5f);
  CHECK(logistic_float(1e6f) == 1.0f);
  CHECK(logistic(1e6) == 1.0);
  CHECK(logistic(-1e6) < 1e-300);
  CHECK(logistic(0.0) == 0.5);
}

TEST_CASE("exp_nonpositive is expf_fast for the softmax's arguments and gives a tiny number, not NaN, at -infinity",
          "[cpu]") {
  double worst = 0;
  for (double x = -87; x <= 0; x += 0.0071) {
    const float v = static_cast<float>(x);
    CHECK(exp_nonpositive(v) == expf_fast(v));
    const double e = std::exp(static_cast<double>(v));
    worst = std::max(worst, std::abs(exp_nonpositive(v) - e) / e);
  }
  CHECK(worst < 2.5e-7);
  CHECK(exp_nonpositive(0.0f) == 1.0f);
  const float at_minus_infinity = exp_nonpositive(-std::numeric_limits<float>::infinity());
  CHECK(at_minus_infinity >= 0.0f);
  CHECK(at_minus_infinity < 1e-37f);
  CHECK(exp_nonpositive(-1e30f) == at_minus_infinity);
}

TEST_CASE("log_positive is within 6 ulp of std::log on every binade of the normal numbers, exact at 1", "[cpu]") {
  auto ulps = [](double x) {
    const double want = std::log(x);
    const double ulp = std::nextafter(std::abs(want), std::numeric_limits<double>::infinity()) - std::abs(want);
    return std::abs(log_positive(x) - want) / ulp;
  };
  double worst = 0;
  for (int e = -1020; e <= 1020; e += 17)
    for (double m = 1.0; m < 2.0; m += 0.0173)
      if (e != 0 || m != 1.0) worst = std::max(worst, ulps(std::ldexp(m, e)));
  // around the mantissa's split at sqrt(2), the smallest and largest normal numbers, and next to 1
  for (double x :
       {std::sqrt(2.0), std::nextafter(std::sqrt(2.0), 0.0), std::nextafter(std::sqrt(2.0), 2.0), std::sqrt(0.5),
        1.0 + 1e-12, 1.0 - 1e-12, std::numeric_limits<double>::min(), std::numeric_limits<double>::max()})
    worst = std::max(worst, ulps(x));
  CHECK(worst <= 6.0);
  CHECK(log_positive(1.0) == 0.0);
}
