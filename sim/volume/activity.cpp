#include "sim/volume/activity.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>
#include <stdexcept>

#include "sim/dynamics/integrator.hpp"
#include "sim/dynamics/model.hpp"
#include "sim/dynamics/normal.hpp"

namespace loci::sim::volume {

dynamics::Coupling distance_coupling(const Eigen::MatrixXd& centroids, double length_mm) {
  if (!(length_mm > 0)) throw std::invalid_argument("coupling: the length scale must be > 0 mm");
  const Eigen::Index n = centroids.rows();
  Eigen::MatrixXd w = Eigen::MatrixXd::Zero(n, n);
  for (Eigen::Index i = 0; i < n; ++i)
    for (Eigen::Index j = 0; j < n; ++j)
      if (i != j) w(i, j) = std::exp(-(centroids.row(i) - centroids.row(j)).norm() / length_mm);
  std::vector<Eigen::Triplet<double>> entries;
  for (Eigen::Index j = 0; j < n; ++j) {
    const double top = w.col(j).maxCoeff();
    double sum = 0;
    for (Eigen::Index i = 0; i < n; ++i)
      if (w(i, j) >= 1e-6 * top) sum += w(i, j);
    for (Eigen::Index i = 0; i < n; ++i)
      if (w(i, j) > 0 && w(i, j) >= 1e-6 * top)
        entries.emplace_back(static_cast<int>(i), static_cast<int>(j), w(i, j) / sum);
  }
  dynamics::Coupling::Sparse m(n, n);
  m.setFromTriplets(entries.begin(), entries.end());
  return dynamics::Coupling(std::move(m));
}

void delay_by_distance(dynamics::Coupling& coupling, const Eigen::MatrixXd& centroids, double velocity_m_s,
                       double step_s) {
  if (!(velocity_m_s > 0) || !(step_s > 0)) throw std::invalid_argument("delays: velocity and step must be > 0");
  const double steps_per_mm = 1e-3 / velocity_m_s / step_s;
  coupling.delay_by([&](std::size_t i, std::size_t j) {
    const double d = (centroids.row(static_cast<Eigen::Index>(i)) - centroids.row(static_cast<Eigen::Index>(j))).norm();
    return static_cast<std::int64_t>(std::llround(d * steps_per_mm));
  });
  if (!coupling.has_delays()) {
    std::ostringstream s;
    s << "delays: at " << velocity_m_s << " m/s every delay is under half a step of " << step_s * 1e3
      << " ms; take more steps per point or a lower velocity";
    throw std::invalid_argument(s.str());
  }
}

LabelVolume crop_to_labels(const LabelVolume& volume) {
  const auto& g = volume.grid;
  std::array<std::int64_t, 3> lo{g.dims}, hi{-1, -1, -1};
  for (std::int64_t v = 0; v < g.voxels(); ++v) {
    if (volume.labels[static_cast<std::size_t>(v)] == 0) continue;
    const auto ijk = g.ijk(v);
    for (std::size_t a = 0; a < 3; ++a) lo[a] = std::min(lo[a], ijk[a]), hi[a] = std::max(hi[a], ijk[a]);
  }
  if (hi[0] < 0) throw std::invalid_argument("crop: the volume has no labelled voxel");
  LabelVolume out;
  for (std::size_t a = 0; a < 3; ++a) out.grid.dims[a] = hi[a] - lo[a] + 1;
  out.grid.affine = g.affine;
  out.grid.affine.topRightCorner<3, 1>() =
      g.affine.topLeftCorner<3, 3>() * Eigen::Vector3d(double(lo[0]), double(lo[1]), double(lo[2])) +
      g.affine.topRightCorner<3, 1>();
  out.labels.resize(static_cast<std::size_t>(out.grid.voxels()));
  for (std::int64_t k = 0; k < out.grid.dims[2]; ++k)
    for (std::int64_t j = 0; j < out.grid.dims[1]; ++j)
      for (std::int64_t i = 0; i < out.grid.dims[0]; ++i)
        out.labels[static_cast<std::size_t>(out.grid.index(i, j, k))] =
            volume.labels[static_cast<std::size_t>(g.index(i + lo[0], j + lo[1], k + lo[2]))];
  return out;
}

void standardise(float* series, std::size_t rows, std::int64_t points) {
  const auto n = static_cast<std::size_t>(points);
  for (std::size_t r = 0; r < rows; ++r) {
    float* x = series + r * n;
    double mean = 0, squares = 0;
    for (std::size_t t = 0; t < n; ++t) mean += x[t];
    mean /= static_cast<double>(n);
    for (std::size_t t = 0; t < n; ++t) squares += (x[t] - mean) * (x[t] - mean);
    const double sd = std::sqrt(squares / static_cast<double>(n));
    for (std::size_t t = 0; t < n; ++t) x[t] = sd > 0 ? static_cast<float>((x[t] - mean) / sd) : 0.0f;
  }
}

std::vector<float> simulate_activity(const LabelVolume& parcels, const Eigen::MatrixXd& centroids,
                                     const ActivityOptions& o, std::uint64_t seed, std::uint64_t subject,
                                     std::int64_t points) {
  if (points < 1 || o.burn_in < 0) throw std::invalid_argument("activity: points must be >= 1 and burn_in >= 0");
  if (!(o.observation_noise >= 0)) throw std::invalid_argument("activity: observation_noise must be >= 0");
  if (o.field_weight == 0 && o.network_weight == 0)
    throw std::invalid_argument("activity: the field and network weights are both 0");
  const auto tokens = static_cast<std::size_t>(centroids.rows());
  const std::int64_t total = o.burn_in + points;
  const auto n = static_cast<std::size_t>(total);
  std::vector<float> x(tokens * n, 0.0f);

  if (o.field_weight != 0) {
    // The field is only ever read inside the parcels: simulating it on their bounding box is the same field there.
    const LabelVolume box = crop_to_labels(parcels);
    SmoothField field(box.grid, o.field, seed, subject);
    const ParcelAverager averager(box, static_cast<std::int64_t>(tokens));
    std::vector<float> means(tokens), component(tokens * n);
    for (std::size_t t = 0; t < n; ++t) {
      field.step();
      averager.average(field.values().data(), means.data());
      for (std::size_t i = 0; i < tokens; ++i) component[i * n + t] = means[i];
    }
    standardise(component.data(), tokens, total);
    for (std::size_t k = 0; k < x.size(); ++k) x[k] += static_cast<float>(o.field_weight) * component[k];
  }
  if (o.network_weight != 0) {
    const auto model = dynamics::make_model(o.network.model, o.network.params);
    const auto integrator = dynamics::make_integrator(o.network.integrator);
    auto coupling = distance_coupling(centroids, o.network.coupling_mm);
    auto sim = o.network.simulation;
    // A step lasts tr_s / steps_per_point seconds: that is the clock the delays are counted on.
    if (o.network.velocity_m_s > 0)
      delay_by_distance(coupling, centroids, o.network.velocity_m_s, o.tr_s / static_cast<double>(sim.subsample()));
    sim.points(total).threads(1);
    auto run = dynamics::simulate(*model, *integrator, coupling, seed, {{"network", subject}}, sim);
    auto& component = run.front().values;
    standardise(component.data(), tokens, total);
    for (std::size_t k = 0; k < x.size(); ++k) x[k] += static_cast<float>(o.network_weight) * component[k];
  }
  if (o.balloon) balloon_bold(x.data(), tokens, total, o.tr_s, o.hemodynamics);

  std::vector<float> out(tokens * static_cast<std::size_t>(points));
  for (std::size_t i = 0; i < tokens; ++i)
    std::copy_n(x.data() + i * n + static_cast<std::size_t>(o.burn_in), points,
                out.data() + i * static_cast<std::size_t>(points));
  standardise(out.data(), tokens, points);
  if (o.observation_noise > 0) {
    Rng rng = Rng::stream(seed, "observation", subject);
    std::vector<double> z(out.size());
    dynamics::normal_fill(rng, z.size(), z.data());
    for (std::size_t k = 0; k < out.size(); ++k) out[k] += static_cast<float>(o.observation_noise * z[k]);
  }
  return out;
}

}  // namespace loci::sim::volume
