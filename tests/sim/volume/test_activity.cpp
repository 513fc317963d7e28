// Activity in the volume (sim/volume): the smooth field's statistics, parcel means, hemodynamics, the parcel network.
#include <catch2/catch.hpp>

#include <cmath>

#include "sim/volume/activity.hpp"
#include "sim/volume/balloon.hpp"
#include "sim/volume/mask.hpp"
#include "sim/volume/parcel_facts.hpp"
#include "sim/volume/parcellate.hpp"
#include "sim/volume/smooth_field.hpp"

namespace vol = loci::sim::volume;

namespace {

vol::Grid cube(std::int64_t n, double voxel_mm) {
  vol::Grid g;
  g.dims = {n, n, n};
  g.affine.topLeftCorner<3, 3>() *= voxel_mm;
  return g;
}

}  // namespace

TEST_CASE("gaussian kernel: scipy.ndimage's radius and weights", "[parcels][field]") {
  const auto w = vol::gaussian_kernel(1.5, 4.0);
  REQUIRE(w.size() == 13);  // radius int(4 * 1.5 + 0.5) = 6
  double sum = 0;
  for (double v : w) sum += v;
  CHECK(sum == Approx(1.0));
  CHECK(w[6] / w[7] == Approx(std::exp(0.5 / 2.25)));
  CHECK(vol::gaussian_kernel(0.0, 4.0) == std::vector<double>{1.0});
  CHECK(vol::fwhm_to_sd(2.0 * std::sqrt(2.0 * std::log(2.0))) == Approx(1.0));
}

TEST_CASE("smooth field: unit variance - correlation falls with distance at the configured FWHM - AR(1) in time",
          "[parcels][field]") {
  const double fwhm = 8.0, sd = vol::fwhm_to_sd(fwhm), rho = 0.6;
  const auto g = cube(32, 2.0);
  vol::SmoothField field(g, vol::SmoothFieldOptions().fwhm_mm(fwhm).rho(rho), 1, 0);
  const int steps = 40;
  const std::vector<int> offsets = {1, 2, 3, 4, 6};  // voxels of 2 mm along each axis
  std::vector<double> products(offsets.size(), 0.0), pairs(offsets.size(), 0.0);
  double squares = 0, count = 0, lagged = 0;
  std::vector<float> previous;
  for (int t = 0; t < steps; ++t) {
    field.step();
    const auto& f = field.values();
    for (std::int64_t v = 0; v < g.voxels(); ++v) {
      squares += f[static_cast<std::size_t>(v)] * f[static_cast<std::size_t>(v)];
      count += 1;
      if (!previous.empty()) lagged += f[static_cast<std::size_t>(v)] * previous[static_cast<std::size_t>(v)];
      const auto ijk = g.ijk(v);
      for (std::size_t k = 0; k < offsets.size(); ++k)
        for (std::size_t a = 0; a < 3; ++a) {
          auto other = ijk;
          other[a] += offsets[k];
          if (other[a] >= g.dims[a]) continue;
          products[k] +=
              f[static_cast<std::size_t>(v)] * f[static_cast<std::size_t>(g.index(other[0], other[1], other[2]))];
          pairs[k] += 1;
        }
    }
    previous = f;
  }
  const double variance = squares / count;
  CHECK(variance == Approx(1.0).margin(0.05));
  CHECK(lagged / (count - static_cast<double>(g.voxels())) / variance == Approx(rho).margin(0.04));
  for (std::size_t k = 0; k < offsets.size(); ++k) {
    const double d = 2.0 * offsets[k];
    INFO("distance " << d << " mm");
    CHECK(products[k] / pairs[k] / variance == Approx(std::exp(-d * d / (4 * sd * sd))).margin(0.04));
  }
}

TEST_CASE("smooth field: the same values for 1 and 2 threads - another subject differs", "[parcels][field]") {
  const auto g = cube(20, 3.0);
  const auto o = vol::SmoothFieldOptions().fwhm_mm(9).rho(0.8);
  vol::SmoothField one(g, vol::SmoothFieldOptions(o).threads(1), 4, 2),
      two(g, vol::SmoothFieldOptions(o).threads(2), 4, 2);
  vol::SmoothField other(g, o, 4, 3);
  for (int t = 0; t < 3; ++t) one.step(), two.step(), other.step();
  CHECK(one.values() == two.values());
  CHECK(one.values() != other.values());
}

TEST_CASE("parcel means average each parcel's voxels", "[parcels][field]") {
  vol::LabelVolume v;
  v.grid.dims = {4, 1, 1};
  v.labels = {1, 2, 1, 0};
  const vol::ParcelAverager avg(v, 2);
  const float field[] = {1, 5, 3, 100};
  float out[2];
  avg.average(field, out);
  CHECK(out[0] == 2.0f);
  CHECK(out[1] == 5.0f);
}

TEST_CASE("balloon model: a brief input gives a BOLD response that peaks after seconds and undershoots",
          "[parcels][hemodynamics]") {
  // One second of input, sampled every 0.1 s for 30 s.
  std::vector<float> series(300, 0.0f);
  std::fill_n(series.begin(), 10, 1.0f);
  vol::balloon_bold(series.data(), 1, 300, 0.1, vol::BalloonOptions().gain(1.0));
  const auto peak = std::max_element(series.begin(), series.end()) - series.begin();
  const double peak_s = 0.1 * static_cast<double>(peak + 1);
  CHECK(peak_s > 2.5);  // these parameters (Friston et al. 2003) peak near 3.5 s
  CHECK(peak_s < 6.0);
  CHECK(series[static_cast<std::size_t>(peak)] > 0);
  CHECK(*std::min_element(series.begin() + peak, series.end()) < 0);  // the post-stimulus undershoot
  CHECK(std::abs(series.back()) < 0.05 * series[static_cast<std::size_t>(peak)]);
  // Coarser TRs cut the same response into fewer, equal Euler steps.
  std::vector<float> coarse(30, 0.0f);
  coarse[0] = 1.0f;
  vol::balloon_bold(coarse.data(), 1, 30, 1.0, vol::BalloonOptions().gain(1.0));
  CHECK(coarse[3] == Approx(series[39]).epsilon(0.1));
}

TEST_CASE("distance coupling: columns sum to one - nearer parcels weigh more", "[parcels][network]") {
  Eigen::MatrixXd c(3, 3);
  c << 0, 0, 0, 10, 0, 0, 40, 0, 0;
  const auto w = vol::distance_coupling(c, 20.0);
  const Eigen::MatrixXd m(w.matrix());
  for (int j = 0; j < 3; ++j) CHECK(m.col(j).sum() == Approx(1.0));
  CHECK(m(0, 0) == 0.0);
  CHECK(m(1, 0) > m(2, 0));
  CHECK(m(1, 0) / m(2, 0) == Approx(std::exp(30.0 / 20.0)));
}

TEST_CASE("a subject's activity: standardised parcels - field and network parts - repeatable", "[parcels][activity]") {
  const auto mask = vol::ellipsoid_mask(vol::EllipsoidOptions().semi_axes_mm({30, 36, 24}).voxel_mm(6));
  const auto p = vol::parcellate(mask, vol::ParcellationOptions().parcels(12).mirror(true), 2);
  const auto facts = vol::describe_parcels(p.labels, 12);
  vol::ActivityOptions o;
  o.burn_in = 5;
  o.network_weight = 0.5;
  o.network.simulation.burn_in(100).subsample(5);
  o.balloon = true;
  const auto a = vol::simulate_activity(p.labels, facts.centroids, o, 9, 1, 60);
  REQUIRE(a.size() == 12 * 60);
  for (int i = 0; i < 12; ++i) {
    double mean = 0, sq = 0;
    for (int t = 0; t < 60; ++t) mean += a[static_cast<std::size_t>(i * 60 + t)];
    mean /= 60;
    for (int t = 0; t < 60; ++t)
      sq += (a[static_cast<std::size_t>(i * 60 + t)] - mean) * (a[static_cast<std::size_t>(i * 60 + t)] - mean);
    CHECK(std::abs(mean) < 1e-5);
    CHECK(std::sqrt(sq / 60) == Approx(1.0).margin(1e-4));
  }
  CHECK(vol::simulate_activity(p.labels, facts.centroids, o, 9, 1, 60) == a);
  CHECK(vol::simulate_activity(p.labels, facts.centroids, o, 9, 2, 60) != a);
  o.field_weight = 0;
  o.network_weight = 0;
  CHECK_THROWS_WITH(vol::simulate_activity(p.labels, facts.centroids, o, 9, 1, 60), Catch::Contains("both 0"));
}

TEST_CASE("conduction delays: distance over velocity in whole steps - none at all is an error", "[parcels][network]") {
  Eigen::MatrixXd c(3, 3);
  c << 0, 0, 0, 10, 0, 0, 40, 0, 0;
  auto w = vol::distance_coupling(c, 20.0);
  vol::delay_by_distance(w, c, 2.0, 1e-3);  // 2 m/s = 2 mm per 1 ms step
  CHECK(w.delay(1, 0) == 5);
  CHECK(w.delay(0, 1) == 5);
  CHECK(w.delay(2, 0) == 20);
  CHECK(w.delay(2, 1) == 15);
  CHECK(w.max_delay() == 20);
  auto fast = vol::distance_coupling(c, 20.0);
  CHECK_THROWS_WITH(vol::delay_by_distance(fast, c, 100.0, 1e-3), Catch::Contains("every delay is under half a step"));
}

TEST_CASE("a subject's network activity with conduction delays: repeatable - other than without",
          "[parcels][activity]") {
  const auto mask = vol::ellipsoid_mask(vol::EllipsoidOptions().semi_axes_mm({30, 36, 24}).voxel_mm(6));
  const auto p = vol::parcellate(mask, vol::ParcellationOptions().parcels(12).mirror(true), 2);
  const auto facts = vol::describe_parcels(p.labels, 12);
  vol::ActivityOptions o;
  o.field_weight = 0;
  o.network_weight = 1;
  o.tr_s = 0.5;
  o.network.simulation.burn_in(200).subsample(50);  // steps of 10 ms
  const auto instantaneous = vol::simulate_activity(p.labels, facts.centroids, o, 9, 1, 40);
  o.network.velocity_m_s = 1.0;  // 10 mm per step: parcels 20-60 mm apart are 2-6 steps late
  const auto delayed = vol::simulate_activity(p.labels, facts.centroids, o, 9, 1, 40);
  CHECK(delayed != instantaneous);
  CHECK(vol::simulate_activity(p.labels, facts.centroids, o, 9, 1, 40) == delayed);
  o.network.velocity_m_s = 100.0;  // a metre per step
  CHECK_THROWS_WITH(vol::simulate_activity(p.labels, facts.centroids, o, 9, 1, 40), Catch::Contains("delays"));
}
