// Every probe in the registry, whichever file registered it (issue 58: tests iterate the registries, so a new probe
// is checked without an edit here): it documents itself, returns exactly the outputs it declares, in order, and the
// same numbers for the same PE, on a 4x4 grid with every truth an analysis may hand it.
#include <catch2/catch.hpp>

#include <cmath>
#include <random>

#include "probe/distance.hpp"
#include "probe/registry.hpp"

using namespace loci::probe;

namespace {

ProbeContext grid_context() {
  ProbeContext c;
  c.positions.resize(16, 2);
  for (int t = 0; t < 16; ++t) c.positions.row(t) << t / 4, t % 4;
  c.true_distance = pairwise_distance(c.positions);
  c.hops.resize(16, 16);
  for (int i = 0; i < 16; ++i)
    for (int j = 0; j < 16; ++j) c.hops(i, j) = (c.positions.row(i) - c.positions.row(j)).cwiseAbs().sum();
  c.fc = (-c.true_distance.array() / 2.0).exp().matrix();
  c.oracle.resize(16, 8);
  for (int t = 0; t < 16; ++t)
    for (int k = 0; k < 4; ++k) {
      c.oracle(t, 2 * k) = std::sin(c.positions(t, k % 2) / (1.0 + k));
      c.oracle(t, 2 * k + 1) = std::cos(c.positions(t, k % 2) / (1.0 + k));
    }
  return c;
}

Eigen::MatrixXd random_pe(unsigned seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<double> normal;
  Eigen::MatrixXd pe(16, 8);
  for (Eigen::Index i = 0; i < pe.size(); ++i) pe.data()[i] = normal(rng);
  return pe;
}

}  // namespace

TEST_CASE("every registered probe documents itself and returns its declared outputs, the same for the same PE") {
  const auto probes = ProbeRegistry::instance().in_order();
  REQUIRE(probes.size() >= 5);
  const ProbeContext context = grid_context();
  for (const ProbeInfo* p : probes) {
    INFO(p->name);
    CHECK_FALSE(p->doc.empty());
    REQUIRE_FALSE(p->outputs.empty());
    for (const Eigen::MatrixXd& pe : {random_pe(1), context.oracle}) {
      const ProbeValues values = p->fn(pe, context);
      REQUIRE(values.size() == p->outputs.size());
      for (std::size_t k = 0; k < values.size(); ++k) {
        CHECK(values[k].first == p->outputs[k]);
        CHECK_FALSE(std::isinf(values[k].second));
      }
      const ProbeValues again = p->fn(pe, context);
      for (std::size_t k = 0; k < values.size(); ++k)
        CHECK((again[k].second == values[k].second || (std::isnan(again[k].second) && std::isnan(values[k].second))));
    }
  }
}
