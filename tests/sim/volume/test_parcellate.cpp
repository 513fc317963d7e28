// Parcellation (sim/volume/parcellate): coverage, connectivity, sizes, mirroring, centroids, jitter, threads.
#include <catch2/catch.hpp>

#include <algorithm>
#include <set>

#include "sim/random/stream.hpp"
#include "sim/volume/connect.hpp"
#include "sim/volume/mask.hpp"
#include "sim/volume/parcel_facts.hpp"
#include "sim/volume/parcellate.hpp"

namespace vol = loci::sim::volume;

namespace {

vol::LabelVolume small_brain(bool hemispheres = true) {
  return vol::ellipsoid_mask(vol::EllipsoidOptions().semi_axes_mm({40, 50, 34}).voxel_mm(4).hemispheres(hemispheres));
}

std::vector<std::int64_t> sizes(const vol::LabelVolume& labels, std::int64_t parcels) {
  std::vector<std::int64_t> n(static_cast<std::size_t>(parcels), 0);
  for (auto l : labels.labels)
    if (l > 0) ++n[static_cast<std::size_t>(l - 1)];
  return n;
}

}  // namespace

TEST_CASE("parcellation covers the mask with connected parcels of sizes within the spread", "[parcels][parcellate]") {
  const auto mask = small_brain();
  const bool mirror = GENERATE(false, true);
  const double spread = GENERATE(0.15, 0.3);
  INFO("mirror " << mirror << ", spread " << spread);
  const std::int64_t P = 40;
  const auto p = vol::parcellate(mask, vol::ParcellationOptions().parcels(P).size_spread(spread).mirror(mirror), 7);
  REQUIRE(p.seeds.rows() == P);
  // Every mask voxel is in a parcel and nothing outside is (no voxel centre lies on x = 0 here).
  CHECK(p.dropped == 0);
  for (std::size_t v = 0; v < mask.labels.size(); ++v) CHECK((mask.labels[v] != 0) == (p.labels.labels[v] != 0));
  // Parcels never cross from one hemisphere into the other.
  for (std::size_t v = 0; v < mask.labels.size(); ++v)
    if (mask.labels[v] != 0)
      CHECK(p.region[static_cast<std::size_t>(p.labels.labels[v] - 1)] % 2 == (mask.labels[v] - 1) % 2);
  for (std::int32_t l = 1; l <= P; ++l) CHECK(vol::count_pieces(p.labels, l) == 1);
  // Each hemisphere is one region: the mean size is half a hemisphere's voxels per parcel.
  const double mean = static_cast<double>(mask.count_nonzero()) / P;
  for (auto n : sizes(p.labels, P)) {
    CHECK(static_cast<double>(n) >= (1 - spread) * mean - 1e-9);
    CHECK(static_cast<double>(n) <= (1 + spread) * mean + 1e-9);
  }
}

TEST_CASE("mirrored parcels are mirror images: parcel p + P/2 reflects parcel p", "[parcels][parcellate]") {
  const auto mask = small_brain();
  const std::int64_t P = 30;
  const auto p = vol::parcellate(mask, vol::ParcellationOptions().parcels(P).mirror(true), 3);
  const auto image = vol::mirror_map(mask.grid);
  for (std::size_t v = 0; v < mask.labels.size(); ++v) {
    const auto l = p.labels.labels[v];
    if (l == 0) continue;
    const auto m = p.labels.labels[static_cast<std::size_t>(image[v])];
    CHECK(m == (l <= P / 2 ? l + P / 2 : l - P / 2));
    CHECK((l <= P / 2) == (mask.grid.mm(static_cast<std::int64_t>(v)).x() < 0));
  }
  const auto facts = vol::describe_parcels(p.labels, P);
  for (std::int64_t q = 0; q < P / 2; ++q) {
    CHECK(facts.centroids(q, 0) == Approx(-facts.centroids(q + P / 2, 0)));
    CHECK(facts.centroids(q, 1) == Approx(facts.centroids(q + P / 2, 1)));
    CHECK(facts.hemisphere[static_cast<std::size_t>(q)] == 0);
    CHECK(facts.hemisphere[static_cast<std::size_t>(q + P / 2)] == 1);
    CHECK(facts.voxels[static_cast<std::size_t>(q)] == facts.voxels[static_cast<std::size_t>(q + P / 2)]);
  }
}

TEST_CASE("centroids lie inside their parcels' hull and mostly in the parcel itself", "[parcels][parcellate]") {
  const auto mask = small_brain(false);
  const std::int64_t P = 25;
  const auto p = vol::parcellate(mask, vol::ParcellationOptions().parcels(P).mirror(false), 11);
  const auto facts = vol::describe_parcels(p.labels, P);
  // The hull test by support functions: along every direction u, the centroid's projection lies between the
  // parcel's smallest and largest projections.
  loci::sim::Rng rng(5);
  std::vector<Eigen::Vector3d> directions;
  for (int k = 0; k < 200; ++k)
    directions.push_back(Eigen::Vector3d(rng.normal(), rng.normal(), rng.normal()).normalized());
  std::vector<Eigen::VectorXd> lo(static_cast<std::size_t>(P), Eigen::VectorXd::Constant(200, 1e9)),
      hi(static_cast<std::size_t>(P), Eigen::VectorXd::Constant(200, -1e9));
  for (std::int64_t v = 0; v < mask.grid.voxels(); ++v) {
    const auto l = p.labels.labels[static_cast<std::size_t>(v)];
    if (l == 0) continue;
    for (int k = 0; k < 200; ++k) {
      const double x = directions[static_cast<std::size_t>(k)].dot(mask.grid.mm(v));
      lo[static_cast<std::size_t>(l - 1)][k] = std::min(lo[static_cast<std::size_t>(l - 1)][k], x);
      hi[static_cast<std::size_t>(l - 1)][k] = std::max(hi[static_cast<std::size_t>(l - 1)][k], x);
    }
  }
  const Eigen::Matrix4d to_voxel = mask.grid.affine.inverse();
  int inside = 0;
  for (std::int64_t q = 0; q < P; ++q) {
    const Eigen::Vector3d c = facts.centroids.row(q).transpose();
    for (int k = 0; k < 200; ++k) {
      const double x = directions[static_cast<std::size_t>(k)].dot(c);
      CHECK(x >= lo[static_cast<std::size_t>(q)][k] - 1e-9);
      CHECK(x <= hi[static_cast<std::size_t>(q)][k] + 1e-9);
    }
    const Eigen::Vector4d ijk = to_voxel * Eigen::Vector4d(c.x(), c.y(), c.z(), 1);
    const auto v = mask.grid.index(std::lround(ijk[0]), std::lround(ijk[1]), std::lround(ijk[2]));
    inside += p.labels.labels[static_cast<std::size_t>(v)] == q + 1;
  }
  CHECK(inside >= P * 9 / 10);
  // Face adjacency is symmetric and every parcel touches another.
  for (std::int64_t i = 0; i < P; ++i) {
    int degree = 0;
    for (std::int64_t j = 0; j < P; ++j) {
      CHECK(facts.adjacency[static_cast<std::size_t>(i * P + j)] ==
            facts.adjacency[static_cast<std::size_t>(j * P + i)]);
      degree += facts.adjacency[static_cast<std::size_t>(i * P + j)];
    }
    CHECK(facts.adjacency[static_cast<std::size_t>(i * P + i)] == 0);
    CHECK(degree > 0);
  }
}

TEST_CASE("parcellation: same seed gives the same parcels for 1 and 2 threads - another seed differs",
          "[parcels][parcellate]") {
  const auto mask = small_brain();
  const auto o = vol::ParcellationOptions().parcels(20).mirror(true);
  const auto one = vol::parcellate(mask, vol::ParcellationOptions(o).threads(1), 5);
  const auto two = vol::parcellate(mask, vol::ParcellationOptions(o).threads(2), 5);
  CHECK(one.labels.labels == two.labels.labels);
  CHECK(vol::parcellate(mask, o, 6).labels.labels != one.labels.labels);
  const auto j1 = vol::jitter(one, 3.0, 5, 4, 1);
  const auto j2 = vol::jitter(one, 3.0, 5, 4, 2);
  CHECK(j1.labels.labels == j2.labels.labels);
}

TEST_CASE("jittered parcellations keep parcel identity - connectivity - and the mirror", "[parcels][parcellate]") {
  const auto mask = small_brain();
  const std::int64_t P = 30;
  const auto base = vol::parcellate(mask, vol::ParcellationOptions().parcels(P).mirror(true), 3);
  const auto same = vol::jitter(base, 0.0, 3, 0);
  CHECK(same.labels.labels == base.labels.labels);
  const auto moved = vol::jitter(base, 3.0, 3, 1);
  CHECK(moved.labels.labels != base.labels.labels);
  const auto a = vol::describe_parcels(base.labels, P), b = vol::describe_parcels(moved.labels, P);
  for (std::int64_t q = 0; q < P; ++q) {
    CHECK(vol::count_pieces(moved.labels, static_cast<std::int32_t>(q + 1)) == 1);
    CHECK((a.centroids.row(q) - b.centroids.row(q)).norm() < 8.0);  // a small move, same parcel
  }
  const auto image = vol::mirror_map(mask.grid);
  for (std::size_t v = 0; v < mask.labels.size(); ++v)
    if (moved.labels.labels[v] > 0 && moved.labels.labels[v] <= P / 2)
      CHECK(moved.labels.labels[static_cast<std::size_t>(image[v])] == moved.labels.labels[v] + P / 2);
}

TEST_CASE("parcellation refuses what it cannot do", "[parcels][parcellate]") {
  const auto mask = small_brain();
  CHECK_THROWS_WITH(vol::parcellate(mask, vol::ParcellationOptions().parcels(21).mirror(true), 1),
                    Catch::Contains("even number"));
  CHECK_THROWS_WITH(vol::parcellate(mask, vol::ParcellationOptions().parcels(1000000), 1),
                    Catch::Contains("parcels for a mask of"));
  // A lopsided mask cannot be mirrored.
  auto lopsided = mask;
  lopsided.labels[static_cast<std::size_t>(lopsided.grid.index(0, 12, 8))] = 1;
  CHECK_THROWS_WITH(vol::parcellate(lopsided, vol::ParcellationOptions().parcels(20).mirror(true), 1),
                    Catch::Contains("not symmetric about x = 0"));
  // No Lloyd steps and a tight spread: the sizes cannot get there.
  CHECK_THROWS_WITH(vol::parcellate(mask, vol::ParcellationOptions().parcels(40).lloyd_steps(0).size_spread(0.01), 1),
                    Catch::Contains("allow more lloyd_steps or a larger size_spread"));
}
