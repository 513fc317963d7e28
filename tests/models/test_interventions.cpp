// Interventions on a PE (models/interventions/): each gives the matrices it promises, row by row, and the model
// evaluates with exactly those matrices; the symmetries of a grid are its 7 rotations and reflections.
#include <catch2/catch.hpp>

#include <algorithm>
#include <numeric>
#include <set>

#include "models/interventions/intervention.hpp"
#include "models/interventions/point_symmetries.hpp"
#include "tests/models/helpers.hpp"

using namespace loci::models;
using namespace loci::models::test;

namespace {

const Intervention& intervention(const std::string& name) {
  for (const auto* i : registered_interventions())
    if (i->name == name) return *i;
  FAIL("intervention " << name << " is not registered");
  throw;
}

PEState random_state(int64_t placements = 2) {
  PEState s;
  auto gen = make_generator(7);
  for (int64_t p = 0; p < placements; ++p) {
    s.trained.push_back(torch::randn({16, 8}, gen));
    s.initial.push_back(torch::randn({16, 8}, gen));
    s.oracle.push_back(torch::randn({16, 8}, gen));
  }
  s.positions = grid();
  s.seed = 3;
  s.permutations = 4;
  return s;
}

bool is_permutation_of_tokens(const std::vector<int64_t>& p, int64_t n) {
  std::vector<int64_t> sorted = p;
  std::sort(sorted.begin(), sorted.end());
  std::vector<int64_t> expected(static_cast<size_t>(n));
  std::iota(expected.begin(), expected.end(), 0);
  return sorted == expected;
}

}  // namespace

TEST_CASE("every intervention the issue names is registered, in the order they are reported") {
  std::vector<std::string> names;
  for (const auto* i : registered_interventions()) names.push_back(i->name);
  for (const char* n :
       {"init", "displacement", "permute_random", "permute_symmetry", "permute_matched", "zero", "rescale", "oracle"})
    CHECK(std::find(names.begin(), names.end(), n) != names.end());
}

TEST_CASE("each intervention gives the matrices it promises, at every placement") {
  const PEState s = random_state();
  SECTION("init: the epoch-0 draw; displacement: trained minus draw; zero; oracle") {
    const auto init = intervention("init").make(s);
    const auto disp = intervention("displacement").make(s);
    const auto zero = intervention("zero").make(s);
    const auto oracle = intervention("oracle").make(s);
    REQUIRE(init.size() == 1);
    for (size_t p = 0; p < 2; ++p) {
      CHECK(torch::equal(init[0].tables[p], s.initial[p]));
      CHECK(torch::allclose(disp[0].tables[p], s.trained[p] - s.initial[p]));
      CHECK(zero[0].tables[p].abs().max().item<double>() == 0.0);
      CHECK(torch::equal(oracle[0].tables[p], s.oracle[p]));
    }
    CHECK(intervention("init").needs_initial);
    CHECK(intervention("displacement").needs_initial);
    CHECK_FALSE(intervention("zero").needs_initial);
  }
  SECTION("rescale: the same direction at 0.5 and 2 times the norm") {
    const auto v = intervention("rescale").make(s);
    REQUIRE(v.size() == 2);
    CHECK(v[0].name == "rescale:0.5");
    CHECK(v[1].name == "rescale:2");
    for (size_t p = 0; p < 2; ++p) {
      CHECK(v[0].tables[p].norm().item<double>() == Approx(0.5 * s.trained[p].norm().item<double>()));
      CHECK(torch::allclose(v[1].tables[p], 2 * s.trained[p]));
    }
  }
  SECTION("permute_random: row i of every placement is the trained row the permutation names, seeded") {
    const auto v = intervention("permute_random").make(s);
    REQUIRE(v.size() == 4);
    std::set<std::vector<int64_t>> distinct;
    for (const auto& variant : v) {
      REQUIRE(is_permutation_of_tokens(variant.permutation, 16));
      distinct.insert(variant.permutation);
      for (size_t p = 0; p < 2; ++p)
        for (int64_t i = 0; i < 16; ++i)
          CHECK(torch::equal(variant.tables[p][i], s.trained[p][variant.permutation[static_cast<size_t>(i)]]));
      CHECK(variant.distortion > 0.1);  // a random relabelling of a grid keeps few distances
    }
    CHECK(distinct.size() == 4);
    CHECK(intervention("permute_random").make(s)[2].permutation == v[2].permutation);
    PEState other = s;
    other.seed = 4;
    CHECK(intervention("permute_random").make(other)[0].permutation != v[0].permutation);
  }
  SECTION("permute_symmetry on the 4x4 grid: 7 relabellings that keep every distance, rows moved by them") {
    const auto v = intervention("permute_symmetry").make(s);
    REQUIRE(v.size() == 7);
    for (const auto& variant : v) {
      INFO(variant.name);
      CHECK(variant.distortion == Approx(0).margin(1e-12));
      for (size_t p = 0; p < 2; ++p)
        for (int64_t i = 0; i < 16; ++i)
          CHECK(torch::equal(variant.tables[p][i], s.trained[p][variant.permutation[static_cast<size_t>(i)]]));
    }
  }
  SECTION("permute_matched: per symmetry, relabellings that move exactly the tokens it moves and fix the rest") {
    const auto symmetries = point_symmetries(s.positions);
    const auto v = intervention("permute_matched").make(s);
    REQUIRE(v.size() == symmetries.size() * 4);
    for (size_t j = 0; j < symmetries.size(); ++j)
      for (size_t k = 0; k < 4; ++k) {
        const auto& variant = v[j * 4 + k];
        INFO(variant.name);
        CHECK(variant.name == "permute_matched:" + symmetries[j].name + "#" + std::to_string(k));
        REQUIRE(is_permutation_of_tokens(variant.permutation, 16));
        for (size_t i = 0; i < 16; ++i)
          if (symmetries[j].permutation[i] == static_cast<int64_t>(i))
            CHECK(variant.permutation[i] == static_cast<int64_t>(i));
        for (size_t p = 0; p < 2; ++p)
          for (int64_t i = 0; i < 16; ++i)
            CHECK(torch::equal(variant.tables[p][i], s.trained[p][variant.permutation[static_cast<size_t>(i)]]));
      }
    // The transpose fixes the diagonal, the readout corner among them: so do its matched relabellings.
    const auto transpose =
        std::find_if(v.begin(), v.end(), [](const auto& x) { return x.name == "permute_matched:(y,x)#0"; });
    REQUIRE(transpose != v.end());
    for (int64_t i : {0, 5, 10, 15}) CHECK(transpose->permutation[static_cast<size_t>(i)] == i);
  }
}

TEST_CASE("point symmetries: a grid's are exact, a random point set gets each axis's nearest mirror") {
  SECTION("4x4 grid: the dihedral group less the identity, each a distinct relabelling keeping all distances") {
    const auto sym = point_symmetries(grid());
    REQUIRE(sym.size() == 7);
    std::set<std::vector<int64_t>> seen;
    for (const auto& s : sym) {
      CHECK(s.exact);
      CHECK(is_permutation_of_tokens(s.permutation, 16));
      CHECK(seen.insert(s.permutation).second);
      const torch::Tensor p = grid().to(torch::kFloat64), moved = p.index_select(0, torch::tensor(s.permutation));
      CHECK(torch::allclose(torch::cdist(moved, moved), torch::cdist(p, p)));
    }
    // The rotation by a quarter turn and the mirror of the first axis are among them.
    const auto named = [&](const std::string& n) {
      return std::any_of(sym.begin(), sym.end(), [&](const PointSymmetry& s) { return s.name == n; });
    };
    CHECK(named("(-x,y)"));
    CHECK(named("(y,-x)"));
  }
  SECTION("random points: no exact symmetry, so a mirror per axis, matched one to one, with its distortion") {
    auto gen = make_generator(11);
    const torch::Tensor points = torch::rand({30, 3}, gen, torch::kFloat64);
    const auto sym = point_symmetries(points);
    REQUIRE(sym.size() == 3);
    for (const auto& s : sym) {
      CHECK_FALSE(s.exact);
      CHECK(is_permutation_of_tokens(s.permutation, 30));
      CHECK(s.distortion > 0);
      CHECK(s.distortion < 0.5);  // a mirror matched to the nearest points keeps most of the geometry
    }
  }
}

TEST_CASE("min_cost_assignment finds the cheapest one-to-one assignment") {
  std::mt19937 gen(5);
  std::uniform_real_distribution<double> u(0, 1);
  for (int trial = 0; trial < 20; ++trial) {
    const size_t n = 6;
    std::vector<std::vector<double>> cost(n, std::vector<double>(n));
    for (auto& row : cost)
      for (auto& c : row) c = u(gen);
    const auto got = min_cost_assignment(cost);
    REQUIRE(is_permutation_of_tokens(got, 6));
    double total = 0, best = 1e300;
    for (size_t i = 0; i < n; ++i) total += cost[i][static_cast<size_t>(got[i])];
    std::vector<int64_t> p(n);
    std::iota(p.begin(), p.end(), 0);
    do {
      double t = 0;
      for (size_t i = 0; i < n; ++i) t += cost[i][static_cast<size_t>(p[i])];
      best = std::min(best, t);
    } while (std::next_permutation(p.begin(), p.end()));
    CHECK(total == Approx(best).epsilon(1e-12));
  }
}

TEST_CASE("a model evaluates with exactly the PE matrices an intervention sets, and only where it sets them") {
  for (const char* type : {"learned", "learned_fixed_norm", "random_fixed", "sinusoidal_2d"}) {
    DYNAMIC_SECTION(type) {
      auto model = make_model(small_model(PEOptions(type)), grid(), 3);
      model->eval();
      const auto trained = model->pe_matrices();
      REQUIRE(trained.size() == 2);
      const torch::Tensor x = puzzle_batch(4, 9);
      const torch::Tensor before = model->classify(x);
      // Block 1's PE alone changed (a shared fixed table is first copied to each placement).
      auto tables = trained;
      tables[1] = trained[1] * 3.0;
      model->set_pe_matrices(tables);
      const auto now = model->pe_matrices();
      CHECK(torch::allclose(now[0], trained[0]));
      CHECK(torch::allclose(now[1], trained[1] * 3.0));
      CHECK_FALSE(torch::allclose(model->classify(x), before));
      // Put back, the model gives what it gave.
      model->set_pe_matrices(trained);
      CHECK(torch::allclose(model->classify(x), before));
    }
  }
  for (const char* type : {"none", "rope", "relative", "alibi"}) {
    DYNAMIC_SECTION(type << " has no rows to change") {
      auto model = make_model(small_model(PEOptions(type)), grid(), 3);
      const auto tables = model->pe_matrices();
      std::vector<torch::Tensor> replacement(tables.size(), torch::zeros({16, 16}));
      CHECK_THROWS_WITH(model->set_pe_matrices(replacement), Catch::Contains("no rows to change"));
    }
  }
}
