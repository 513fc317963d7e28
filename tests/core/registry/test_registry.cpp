// The one registry template every kind of variant uses (core/registry.hpp): what a user sees for an unknown
// name, what a second registration of a name does, and the two orders callers rely on (sorted names for choice
// lists and docs, registration order for the probes an analysis runs). And the registries loci_sim owns are filled
// by their variants' own files, each through LOCI_REGISTER.
#include <catch2/catch.hpp>

#include "core/registry.hpp"
#include "sim/dynamics/integrator.hpp"
#include "sim/dynamics/model.hpp"
#include "sim/graph/topology.hpp"

#include <stdexcept>
#include <string>

namespace {

struct ToyInfo {
  std::string name;
  int value = 0;
};

LOCI_DEFINE_REGISTRY(ToyInfo, "toy")

LOCI_REGISTER(ToyInfo, {"zebra", 1});
LOCI_REGISTER(ToyInfo, {"aardvark", 2});

}  // namespace

TEST_CASE("A registry names what is known when asked for an unknown name, and refuses a name twice") {
  auto& r = ::loci::Registry<ToyInfo>::instance();
  CHECK(r.at("zebra").value == 1);
  CHECK(r.contains("aardvark"));
  CHECK(r.find("okapi") == nullptr);
  try {
    r.at("okapi");
    FAIL("no error for an unknown name");
  } catch (const std::invalid_argument& e) {
    CHECK(std::string(e.what()) == "unknown toy 'okapi' (known: aardvark, zebra)");
  }
  CHECK_THROWS_WITH(r.add({"zebra", 3}), "toy 'zebra' registered twice");
  CHECK(r.at("zebra").value == 1);  // the first registration stands
}

TEST_CASE("A registry lists names sorted and entries in the order registered") {
  const auto& r = ::loci::Registry<ToyInfo>::instance();
  CHECK(r.names() == std::vector<std::string>{"aardvark", "zebra"});
  const auto order = r.in_order();
  REQUIRE(order.size() == 2);
  CHECK(order[0]->name == "zebra");
  CHECK(order[1]->name == "aardvark");
}

TEST_CASE("loci_sim's topologies, dynamics models and integrators register themselves from their own files") {
  using namespace loci::sim;
  for (const char* t : {"lattice", "geometric", "erdos_renyi", "watts_strogatz", "waxman", "block_model"})
    CHECK(graph::TopologyRegistry::instance().contains(t));
  CHECK(dynamics::integrator_names() == std::vector<std::string>{"euler_maruyama", "heun"});
  CHECK_THROWS_WITH(dynamics::model_info("kuramoto"), Catch::StartsWith("unknown model 'kuramoto' (known: "));
}
