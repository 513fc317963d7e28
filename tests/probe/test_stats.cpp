// The statistics every comparison of runs carries (probe/stats/), each checked against scipy 1.10 on the same
// numbers: scipy.stats.permutation_test with n_resamples=inf (exact), scipy.stats.t, scipy.stats.spearmanr; Holm and
// Kaplan-Meier against their textbook formulas worked by hand (the numbers in the comments).
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>

#include "probe/stats/compare.hpp"
#include "probe/stats/rank_correlation.hpp"
#include "probe/stats/survival.hpp"

using namespace loci::probe;

namespace {
const double kNaN = std::numeric_limits<double>::quiet_NaN();
}

TEST_CASE("a paired comparison gives scipy's exact sign-flip p and the t interval of the mean difference", "[stats]") {
  // Six seeds of sigma 0.2 (a) and 2.0 (b), paired by their shared draw.
  const std::vector<double> a{0.94, 0.91, 0.97, 0.89, 0.95, 0.93}, b{0.25, 0.31, 0.22, 0.40, 0.28, 0.35};
  const Comparison c = compare_paired(a, b);
  CHECK(c.paired);
  CHECK(c.exact);
  CHECK(c.rearrangements == 64);
  CHECK(c.n_a == 6);
  CHECK(c.difference == Approx(-0.63));
  CHECK(c.ci.low == Approx(-0.726866945806099).epsilon(1e-8));
  CHECK(c.ci.high == Approx(-0.533133054193901).epsilon(1e-8));
  CHECK(c.effect_size == Approx(-6.825284392774674).epsilon(1e-8));
  CHECK(c.p_value == Approx(0.03125));  // 2 of 64 sign patterns as extreme, two-sided
  CHECK(c.test() == "exact sign-flip");

  // Differences of both signs: p far from significant.
  const std::vector<double> a2{0.1, 0.3, 0.2, 0.5, 0.4, 0.35, 0.15}, b2{0.12, 0.25, 0.28, 0.52, 0.47, 0.30, 0.2};
  const Comparison c2 = compare_paired(a2, b2);
  CHECK(c2.p_value == Approx(0.390625));
  CHECK(c2.ci.low == Approx(-0.028938236975833597).epsilon(1e-8));
  CHECK(c2.ci.high == Approx(0.0689382369758336).epsilon(1e-8));
}

TEST_CASE("a pair with a missing value is left out, and too few pairs give no answer", "[stats]") {
  const Comparison c = compare_paired({0.9, kNaN, 0.8}, {0.5, 0.4, 0.3});
  CHECK(c.n_a == 2);
  CHECK(c.difference == Approx(-0.45));
  const Comparison none = compare_paired({0.9, kNaN}, {0.5, 0.4});
  CHECK(none.n_a == 1);
  CHECK(std::isnan(none.p_value));
  CHECK(std::isnan(none.ci.low));
  CHECK_THROWS_AS(compare_paired({1, 2}, {1}), std::invalid_argument);
}

TEST_CASE("an independent comparison gives scipy's exact permutation p and Welch's interval", "[stats]") {
  const std::vector<double> x{0.1, 0.3, 0.2, 0.5, 0.4}, y{0.35, 0.6, 0.55, 0.7, 0.45, 0.8};
  const Comparison c = compare_independent(x, y);
  CHECK_FALSE(c.paired);
  CHECK(c.exact);
  CHECK(c.rearrangements == 462);  // C(11, 6)
  CHECK(c.difference == Approx(0.275));
  CHECK(c.ci.low == Approx(0.05402977584993779).epsilon(1e-8));
  CHECK(c.ci.high == Approx(0.49597022415006237).epsilon(1e-8));
  CHECK(c.effect_size == Approx(1.7063893769835636).epsilon(1e-8));
  CHECK(c.p_value == Approx(0.030303030303030304).epsilon(1e-12));
  CHECK(c.test() == "exact label permutation");
}

TEST_CASE("large groups fall back to a Monte Carlo permutation that agrees with the exact p", "[stats]") {
  // 12 + 12 runs: C(24, 12) = 2.7 million splits, above the exact limit.
  std::vector<double> a, b;
  for (int i = 0; i < 12; ++i) a.push_back(0.5 + 0.02 * i), b.push_back(0.55 + 0.02 * i);
  const Comparison c = compare_independent(a, b, 20000, 3);
  CHECK_FALSE(c.exact);
  CHECK(c.rearrangements == 20000);
  CHECK(c.test() == "Monte Carlo label permutation (20000)");
  // scipy.stats.permutation_test with 200,000 resamples gives 0.1084; 20,000 resamples land within 3 of their
  // standard errors (0.0022) of it.
  CHECK(c.p_value > 0.1018);
  CHECK(c.p_value < 0.1150);
  CHECK(compare_independent(a, b, 20000, 3).p_value == c.p_value);  // deterministic for a seed
}

TEST_CASE("Holm's adjustment over a family, NaN left out of the count", "[stats]") {
  const auto adj = holm_adjust({0.01, 0.04, 0.03, 0.005, kNaN, 0.2});
  CHECK(adj[0] == Approx(0.04));
  CHECK(adj[1] == Approx(0.09));  // 2 x 0.04 = 0.08, raised to the step before it: monotone
  CHECK(adj[2] == Approx(0.09));
  CHECK(adj[3] == Approx(0.025));
  CHECK(std::isnan(adj[4]));
  CHECK(adj[5] == Approx(0.2));
  CHECK(holm_adjust({0.6, 0.7})[1] == Approx(1.0));  // capped at 1
}

TEST_CASE("Student's t quantile agrees with scipy.stats.t.ppf, at whole and fractional dof", "[stats]") {
  CHECK(t_quantile_975(5) == Approx(2.5705818366147395).epsilon(1e-8));  // Boost.Math agrees to ~1e-9
  CHECK(t_quantile_975(7.3) == Approx(2.345066736150929).epsilon(1e-8));
  CHECK(std::isnan(t_quantile_975(0)));
}

TEST_CASE("a correlation over runs gives scipy's rho and exact permutation p, inside its bootstrap interval",
          "[stats]") {
  const std::vector<double> u{0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7}, v{0.9, 0.85, 0.7, 0.75, 0.5, 0.3, 0.35};
  const RankCorrelation r = spearman_test(u, v);
  CHECK(r.n == 7);
  CHECK(r.exact);
  CHECK(r.rho == Approx(-0.9285714285714288).epsilon(1e-12));
  CHECK(r.p_value == Approx(0.006746031746031746).epsilon(1e-8));
  CHECK(r.ci.low <= r.rho);
  CHECK(r.ci.high >= r.rho);
  CHECK(r.ci.low >= -1.0);

  // Ties ranked as scipy ranks them (exact ties only).
  const RankCorrelation t = spearman_test({1, 2, 2, 3, 4, 5}, {3, 1, 2, 2, 5, 4});
  CHECK(t.rho == Approx(0.5441176470588235).epsilon(1e-12));
  CHECK(t.p_value == Approx(0.26666666666666666).epsilon(1e-8));

  const RankCorrelation few = spearman_test({1, 2}, {2, 1});
  CHECK(std::isnan(few.rho));
}

// Three sigmas, each drawn once per seed (4 seeds): y rises with sigma within every draw, but the draws differ by
// far more than sigma moves y. Over all runs the trend is weak; within the draws it is certain.
TEST_CASE("a correlation with strata permutes only within them and fits a paired design", "[stats]") {
  std::vector<double> sigma, y;
  std::vector<std::size_t> draw;
  for (std::size_t d = 0; d < 4; ++d)
    for (double s : {0.2, 1.0, 2.0}) {
      sigma.push_back(s);
      y.push_back(s + 10.0 * static_cast<double>((d * 3) % 4));
      draw.push_back(d);
    }
  const RankCorrelation pooled = spearman_test(sigma, y), paired = spearman_test(sigma, y, 10000, 2000, 0, draw);
  CHECK(pooled.strata == 0);
  CHECK(paired.strata == 4);
  CHECK_FALSE(paired.exact);
  CHECK(pooled.rho == Approx(0.236).margin(0.01));
  CHECK(paired.rho == Approx(1.0));  // within every draw, y follows sigma
  CHECK(pooled.p_value > 0.3);
  // Every draw in sigma's order: 2 x (1/6)^4 of the within-draw arrangements, about 0.0015.
  CHECK(paired.p_value < 0.01);

  // Strata that each hold one sigma rank nothing: nothing can be shown.
  const std::vector<double> s2{0.2, 0.2, 1.0, 1.0, 2.0, 2.0}, y2{1, 2, 3, 4, 5, 6};
  const std::vector<std::size_t> one_sigma_each{0, 0, 1, 1, 2, 2};
  CHECK(spearman_test(s2, y2).p_value < 0.05);
  CHECK(std::isnan(spearman_test(s2, y2, 10000, 2000, 0, one_sigma_each).p_value));

  CHECK_THROWS_AS(spearman_test(s2, y2, 10000, 2000, 0, {0, 1}), std::invalid_argument);
}

TEST_CASE("Kaplan-Meier counts a run without an onset as censored, not as missing", "[stats]") {
  // Onsets at 100, 200, 200 and 400; runs without one censored at their last evaluation 200, 300, 400 and 500.
  const std::vector<SurvivalTime> times{{100, true},  {200, true}, {200, true},  {200, false},
                                        {300, false}, {400, true}, {400, false}, {500, false}};
  const auto steps = kaplan_meier(times);
  REQUIRE(steps.size() == 5);
  CHECK(steps[0].time == 100);
  CHECK(steps[0].at_risk == 8);
  CHECK(steps[0].survival == Approx(0.875));
  CHECK(steps[0].ci_low == Approx(0.38700001403202505).epsilon(1e-8));
  CHECK(steps[0].ci_high == Approx(0.981392965878966).epsilon(1e-8));
  CHECK(steps[1].at_risk == 7);
  CHECK(steps[1].events == 2);
  CHECK(steps[1].censored == 1);
  CHECK(steps[1].survival == Approx(0.625));
  CHECK(steps[2].survival == Approx(0.625));  // a censoring alone does not step
  CHECK(steps[3].at_risk == 3);
  CHECK(steps[3].survival == Approx(5.0 / 12));
  CHECK(steps[3].ci_low == Approx(0.07196749750078908).epsilon(1e-8));
  CHECK(steps[3].ci_high == Approx(0.7473261854988591).epsilon(1e-8));
  CHECK(steps[4].survival == Approx(5.0 / 12));
  // Dropping the censored runs, as the old fit did, would claim every run had an onset by 400.
}
