#include "sim/volume/parcel_facts.hpp"

#include <algorithm>
#include <map>
#include <stdexcept>
#include <string>

namespace loci::sim::volume {

ParcelFacts describe_parcels(const LabelVolume& parcels, std::int64_t count) {
  const auto& g = parcels.grid;
  const auto n = static_cast<std::size_t>(count);
  ParcelFacts f;
  f.centroids = Eigen::MatrixXd::Zero(count, 3);
  f.voxels.assign(n, 0);
  f.adjacency.assign(n * n, 0);
  // Face neighbours in +x, +y, +z cover every shared face once.
  const std::int64_t step[3] = {1, g.dims[0], g.dims[0] * g.dims[1]};
  for (std::int64_t v = 0; v < g.voxels(); ++v) {
    const std::int32_t l = parcels.labels[static_cast<std::size_t>(v)];
    if (l == 0) continue;
    if (l < 0 || l > count)
      throw std::invalid_argument("parcels: label " + std::to_string(l) + " outside 1.." + std::to_string(count));
    const auto p = static_cast<std::size_t>(l - 1);
    ++f.voxels[p];
    f.centroids.row(static_cast<Eigen::Index>(p)) += g.mm(v).transpose();
    const auto ijk = g.ijk(v);
    for (int a = 0; a < 3; ++a) {
      if (ijk[static_cast<std::size_t>(a)] + 1 >= g.dims[static_cast<std::size_t>(a)]) continue;
      const std::int32_t m = parcels.labels[static_cast<std::size_t>(v + step[a])];
      if (m > 0 && m != l && m <= count) {
        f.adjacency[p * n + static_cast<std::size_t>(m - 1)] = 1;
        f.adjacency[static_cast<std::size_t>(m - 1) * n + p] = 1;
      }
    }
  }
  f.volumes_mm3.resize(n);
  for (std::size_t p = 0; p < n; ++p) {
    if (f.voxels[p] == 0) throw std::invalid_argument("parcels: parcel " + std::to_string(p + 1) + " has no voxels");
    f.centroids.row(static_cast<Eigen::Index>(p)) /= static_cast<double>(f.voxels[p]);
    f.volumes_mm3[p] = static_cast<double>(f.voxels[p]) * g.voxel_volume_mm3();
  }
  f.hemisphere = hemispheres(f.centroids);
  return f;
}

std::vector<std::uint8_t> hemispheres(const Eigen::MatrixXd& centroids) {
  std::vector<std::uint8_t> out(static_cast<std::size_t>(centroids.rows()));
  for (Eigen::Index p = 0; p < centroids.rows(); ++p) out[static_cast<std::size_t>(p)] = centroids(p, 0) < 0 ? 0 : 1;
  return out;
}

std::vector<float> distance_matrix(const Eigen::MatrixXd& points) {
  const auto n = static_cast<std::size_t>(points.rows());
  std::vector<float> d(n * n);
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = 0; j < n; ++j)
      d[i * n + j] = static_cast<float>(
          (points.row(static_cast<Eigen::Index>(i)) - points.row(static_cast<Eigen::Index>(j))).norm());
  return d;
}

std::vector<std::int32_t> relabel_consecutive(LabelVolume& volume) {
  const std::vector<std::int32_t> original = volume.distinct_labels();
  std::map<std::int32_t, std::int32_t> to;
  for (std::size_t i = 0; i < original.size(); ++i) to[original[i]] = static_cast<std::int32_t>(i + 1);
  for (auto& l : volume.labels)
    if (l != 0) l = to.at(l);
  return original;
}

}  // namespace loci::sim::volume
