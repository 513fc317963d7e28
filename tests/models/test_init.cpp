// The init registry: each initialiser's distribution and its determinism under a caller's seed.

#include "models/init/init_registry.hpp"
#include "models/positions/sinusoid.hpp"
#include "tests/models/helpers.hpp"

#include <catch2/catch.hpp>

#include <set>

using namespace loci::models;

namespace {

using loci::models::test::max_abs;

torch::Tensor draw(const InitOptions& o, at::IntArrayRef shape = {200, 160}, uint64_t seed = 1,
                   const torch::Tensor& positions = {}) {
  return make_init(shape, o, {positions, make_generator(seed)});
}

}  // namespace

TEST_CASE("normal(sigma) has empirical std sigma and mean 0") {
  for (double sigma : {0.01, 0.2, 2.0}) {
    const auto t = draw(InitOptions("normal").std(sigma));
    CHECK(t.scalar_type() == torch::kFloat32);
    CHECK(t.std().item<double>() == Approx(sigma).epsilon(0.02));
    CHECK(std::abs(t.mean().item<double>()) < 0.01 * sigma);
  }
}

TEST_CASE("every registered initialiser gives the same draw for the same seed, and a random one another for another") {
  // The two that draw nothing at random; a new initialiser is taken to be random until listed here.
  const std::set<std::string> seed_free{"zeros", "from_sinusoidal"};
  for (const auto& name : InitRegistry::names()) {
    INFO(name);
    const auto positions = grid_positions(10, 20);
    const auto a = draw(InitOptions(name), {200, 160}, 42, positions);
    CHECK(torch::equal(a, draw(InitOptions(name), {200, 160}, 42, positions)));
    if (!seed_free.count(name)) CHECK_FALSE(torch::equal(a, draw(InitOptions(name), {200, 160}, 43, positions)));
  }
}

TEST_CASE("zeros and uniform and truncated normal stay in their ranges") {
  CHECK(max_abs(draw(InitOptions("zeros"))) == 0.0);
  const auto u = draw(InitOptions("uniform").a(0.3));
  CHECK(max_abs(u) <= 0.3);
  CHECK(u.std().item<double>() == Approx(0.3 / std::sqrt(3.0)).epsilon(0.03));
  const auto t = draw(InitOptions("truncated_normal").std(0.5));
  CHECK(max_abs(t) <= 1.0 + 1e-6);
  // A normal cut at +-2 sigma keeps 88% of the untruncated variance.
  CHECK(t.std().item<double>() == Approx(0.5 * 0.8796).epsilon(0.03));
}

TEST_CASE("orthogonal gives orthonormal columns (tall) or rows (wide) times the gain") {
  const auto tall = draw(InitOptions("orthogonal").gain(2.0), {40, 16});
  CHECK(max_abs(tall.t().matmul(tall) - 4.0 * torch::eye(16)) < 1e-4);
  const auto wide = draw(InitOptions("orthogonal"), {16, 40});
  CHECK(max_abs(wide.matmul(wide.t()) - torch::eye(16)) < 1e-4);
}

TEST_CASE("from_sinusoidal and from_coordinates follow the positions times the scale") {
  const auto positions = grid_positions(4, 4);
  const auto s = draw(InitOptions("from_sinusoidal").scale(0.5), {16, 8});
  CHECK(max_abs(s - 0.5 * sinusoid_table(torch::arange(16), 8, 10000.0)) < 1e-6);
  const auto c = draw(InitOptions("from_sinusoidal").source(SinusoidSource::coordinates), {16, 8}, 1, positions);
  CHECK(max_abs(c - sinusoid_table_nd(positions, 8, 10000.0)) < 1e-6);

  const auto tiled = draw(InitOptions("from_coordinates").mode(CoordinateMode::tile).scale(2.0), {16, 6}, 1, positions);
  const auto standard_row = (positions.select(1, 0) - 1.5) / std::sqrt(1.25);
  CHECK(max_abs(tiled.select(1, 0) - 2.0 * standard_row) < 1e-5);
  CHECK(max_abs(tiled.select(1, 2) - tiled.select(1, 0)) == 0.0);
  const auto projected = draw(InitOptions("from_coordinates").scale(0.1), {16, 160}, 1, positions);
  // A linear image of 2D coordinates: rank 2, centred.
  const auto singular = torch::linalg_svdvals(projected);
  CHECK(singular[1].item<double>() > 0.1 * singular[0].item<double>());
  CHECK(singular[2].item<double>() < 1e-5 * singular[0].item<double>());
  CHECK(max_abs(projected.mean(0)) < 1e-5);
  CHECK_THROWS(draw(InitOptions("from_coordinates"), {16, 8}));  // no positions
}

TEST_CASE("unknown initialisers are refused with the known names") {
  CHECK_THROWS_WITH(draw(InitOptions("gaussian")), Catch::Contains("known: from_coordinates"));
  CHECK(InitRegistry::names().size() >= 7);
}

TEST_CASE("the shared init keys are declared once: each one's typed access reaches the InitOptions field it names") {
  // init_keys.hpp is the one list the trainer's schema, reader and recorded config follow; a key whose access went to
  // another field would read a config's std into gain, silently.
  std::set<std::string> names;
  for (const auto& k : init_keys()) {
    names.insert(k.key);
    InitOptions o;
    if (k.text) {
      REQUIRE(!k.choices.empty());
      const std::string other = k.choices.back();
      k.set_text(o, other);
      CHECK(k.text_value(o) == other);
    } else {
      k.set_number(o, 1234.5);
      CHECK(k.number(o) == 1234.5);
    }
  }
  CHECK(names == std::set<std::string>{"std", "a", "gain", "scale", "source", "mode", "base"});
  InitOptions o;
  for (const auto& k : init_keys())
    if (!k.text) k.set_number(o, k.key == "std" ? 0.3 : k.key == "a" ? 0.4 : k.key == "gain" ? 0.5 : 0.6);
  CHECK(o.std() == 0.3);
  CHECK(o.a() == 0.4);
  CHECK(o.gain() == 0.5);
  CHECK(o.scale() == 0.6);
  for (const auto& k : init_keys())
    if (k.text) k.set_text(o, k.choices.back());
  CHECK(o.source() == SinusoidSource::coordinates);
  CHECK(o.mode() == CoordinateMode::tile);
  for (const auto& k : init_keys())
    if (k.text) CHECK_THROWS_WITH(k.set_text(o, "diagonal"), Catch::Contains("'diagonal' is not one of"));
  CHECK(init_scale(InitOptions("uniform").a(0.25)) == 0.25);
  // A registration naming a scale or a read key outside the list is a bug of its author, caught at registration.
  CHECK_THROWS_WITH(init_info("bad", nullptr, "source"), Catch::Contains("no number key"));
  CHECK_THROWS_WITH(init_info("bad", nullptr, "std", {"sigma"}), Catch::Contains("'sigma', which is no key"));
}
