// The controls every probe number needs: a permutation p-value for RSA (Mantel-style), bootstrap intervals over
// seeds, and the other truths a PE may organise by; each checked on cases worked by hand.
#include <catch2/catch.hpp>

#include <cmath>

#include "probe/bootstrap.hpp"
#include "probe/distance.hpp"
#include "probe/permutation.hpp"
#include "probe/registry.hpp"

using namespace loci::probe;

namespace {

Eigen::MatrixXd line_of(int n) {
  Eigen::MatrixXd p(n, 1);
  for (int i = 0; i < n; ++i) p(i, 0) = i;
  return p;
}

const ProbeInfo& registered(const std::string& name) {
  const ProbeInfo* p = ProbeRegistry::instance().find(name);
  if (!p) FAIL("probe " << name << " is not registered");
  return *p;
}

}  // namespace

TEST_CASE("the Mantel p-value counts the shuffles that score at least the observed RSA") {
  // Four points on a line, PE = truth: of the 24 orders of the tokens only the identity and the reversal keep every
  // distance, so about 2/24 of the shuffles tie the observed Spearman of 1 and every other one scores lower.
  const Eigen::MatrixXd d = pairwise_distance(line_of(4));
  const MantelResult r = mantel_test({d}, d, 6000, 1);
  CHECK(r.observed == Approx(1.0));
  CHECK(r.p_value == Approx((1.0 + 6000.0 * 2.0 / 24.0) / 6001.0).margin(0.015));
  // The same seed, the same p; another seed, another sample of shuffles.
  CHECK(mantel_test({d}, d, 6000, 1).p_value == r.p_value);
  // A PE whose distances run against the truth's is never beaten by chance's "at least": p near 1.
  const Eigen::MatrixXd against = d.maxCoeff() - d.array();
  Eigen::MatrixXd a = against;
  a.diagonal().setZero();
  CHECK(mantel_test({a}, d, 2000, 2).p_value > 0.9);
  // On 16 tokens of a 4x4 grid, a PE that mirrors it beats all but the grid's 8 symmetries among 16! orders.
  Eigen::MatrixXd grid(16, 2);
  for (int t = 0; t < 16; ++t) grid.row(t) << t / 4, t % 4;
  const Eigen::MatrixXd g = pairwise_distance(grid);
  CHECK(mantel_test({g, g}, g, 1000, 3).p_value == Approx(1.0 / 1001.0));
  // A constant PE has no RSA: NaN, not a made-up p.
  CHECK(std::isnan(mantel_test({Eigen::MatrixXd::Zero(16, 16)}, g, 100, 0).p_value));
}

TEST_CASE("bootstrap intervals of a mean over seeds") {
  // Constant values: the interval is the value.
  const Interval c = bootstrap_mean_ci({0.7, 0.7, 0.7}, 500, 0.95, 0);
  CHECK(c.low == Approx(0.7));
  CHECK(c.high == Approx(0.7));
  // Two seeds {0, 1}: resampled means are 0, 0.5, 1 with chances 1/4, 1/2, 1/4, so the 95% interval is [0, 1].
  const Interval two = bootstrap_mean_ci({0.0, 1.0}, 4000, 0.95, 0);
  CHECK(two.low == 0.0);
  CHECK(two.high == 1.0);
  // ... and the 40% interval is just the middle value.
  const Interval mid = bootstrap_mean_ci({0.0, 1.0}, 4000, 0.4, 0);
  CHECK(mid.low == 0.5);
  CHECK(mid.high == 0.5);
  // One seed has no interval; NaN values are left out.
  CHECK(std::isnan(bootstrap_mean_ci({0.3}, 100, 0.95, 0).low));
  CHECK(bootstrap_mean_ci({0.2, NAN, 0.2}, 100, 0.95, 0).high == Approx(0.2));
}

TEST_CASE("RSA against Manhattan distance and against sharing a row or column, registered as probes") {
  Eigen::MatrixXd grid(16, 2);
  for (int t = 0; t < 16; ++t) grid.row(t) << t / 4, t % 4;
  ProbeContext c;
  c.positions = grid;
  // A PE that is the grid itself: Manhattan and euclidean distances rank alike but not identically.
  const double manhattan = registered("rsa_manhattan").fn(grid, c).front().second;
  CHECK(manhattan > 0.9);
  CHECK(manhattan < 1.0);
  // A PE made of one-hot row and column indicators: tokens on one line are at distance sqrt(2), others at 2, so
  // it ranks pairs exactly as "not on one row or column" does.
  Eigen::MatrixXd lines = Eigen::MatrixXd::Zero(16, 8);
  for (int t = 0; t < 16; ++t) lines(t, t / 4) = lines(t, 4 + t % 4) = 1;
  CHECK(registered("rsa_same_line").fn(lines, c).front().second == Approx(1.0));
  // Off a grid (every token its own x), there are no lines: NaN.
  ProbeContext on_a_line;
  on_a_line.positions = line_of(6);
  CHECK(std::isnan(registered("rsa_same_line").fn(line_of(6), on_a_line).front().second));
  // Without a graph, no hops.
  CHECK(std::isnan(registered("rsa_hops").fn(grid, c).front().second));
}
