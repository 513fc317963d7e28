#include "sim/volume/grid.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>
#include <stdexcept>

namespace loci::sim::volume {

std::int64_t LabelVolume::count_nonzero() const {
  return static_cast<std::int64_t>(std::count_if(labels.begin(), labels.end(), [](std::int32_t l) { return l != 0; }));
}

std::vector<std::int32_t> LabelVolume::distinct_labels() const {
  std::set<std::int32_t> seen;
  for (auto l : labels)
    if (l != 0) seen.insert(l);
  return {seen.begin(), seen.end()};
}

std::vector<std::int64_t> mirror_map(const Grid& grid) {
  const Eigen::Matrix4d inverse = grid.affine.inverse();
  std::vector<std::int64_t> out(static_cast<std::size_t>(grid.voxels()), -1);
  for (std::int64_t v = 0; v < grid.voxels(); ++v) {
    Eigen::Vector4d p;
    p << grid.mm(v), 1.0;
    p.x() = -p.x();
    const Eigen::Vector4d q = inverse * p;
    std::array<std::int64_t, 3> ijk{};
    bool ok = true;
    for (int a = 0; a < 3; ++a) {
      const double r = std::round(q[a]);
      // A mirror image more than a hundredth of a voxel from a voxel centre has no voxel of its own.
      ok = ok && std::abs(q[a] - r) < 0.01 && r >= 0 && r < static_cast<double>(grid.dims[static_cast<std::size_t>(a)]);
      ijk[static_cast<std::size_t>(a)] = static_cast<std::int64_t>(r);
    }
    if (ok) out[static_cast<std::size_t>(v)] = grid.index(ijk[0], ijk[1], ijk[2]);
  }
  return out;
}

LabelVolume resample(const LabelVolume& volume, double voxel_mm) {
  if (!(voxel_mm > 0)) throw std::invalid_argument("resample: the voxel size must be > 0");
  const Grid& g = volume.grid;
  Eigen::Vector3d lo = Eigen::Vector3d::Constant(std::numeric_limits<double>::infinity()), hi = -lo;
  for (std::int64_t v = 0; v < g.voxels(); ++v)
    if (volume.labels[static_cast<std::size_t>(v)] != 0) lo = lo.cwiseMin(g.mm(v)), hi = hi.cwiseMax(g.mm(v));
  if (!(lo.x() <= hi.x())) throw std::invalid_argument("resample: the volume has no labelled voxel");
  LabelVolume out;
  out.grid.affine.topLeftCorner<3, 3>() *= voxel_mm;
  const double half_x = std::max(std::abs(lo.x()), std::abs(hi.x()));
  // Counted in doubles first: a tiny voxel must be refused, not overflow a cast.
  const double side_x = std::ceil(half_x / voxel_mm - 0.5) + 1;
  std::array<double, 3> dims{2 * side_x, 0, 0};
  for (int a = 1; a < 3; ++a) dims[static_cast<std::size_t>(a)] = std::ceil((hi[a] - lo[a]) / voxel_mm) + 1;
  if (dims[0] * dims[1] * dims[2] > kMaxGridVoxels)
    throw std::invalid_argument("resample: a voxel this small makes a grid of more than 2^31 voxels");
  for (std::size_t a = 0; a < 3; ++a) out.grid.dims[a] = static_cast<std::int64_t>(dims[a]);
  out.grid.affine(0, 3) = -(side_x - 0.5) * voxel_mm;
  for (int a = 1; a < 3; ++a) out.grid.affine(a, 3) = lo[a];
  const Eigen::Matrix4d to_voxel = g.affine.inverse();
  out.labels.assign(static_cast<std::size_t>(out.grid.voxels()), 0);
  for (std::int64_t v = 0; v < out.grid.voxels(); ++v) {
    Eigen::Vector4d p;
    p << out.grid.mm(v), 1.0;
    const Eigen::Vector4d q = to_voxel * p;
    std::array<std::int64_t, 3> ijk{};
    bool inside = true;
    for (std::size_t a = 0; a < 3; ++a) {
      ijk[a] = static_cast<std::int64_t>(std::lround(q[static_cast<Eigen::Index>(a)]));
      inside = inside && ijk[a] >= 0 && ijk[a] < g.dims[a];
    }
    if (inside)
      out.labels[static_cast<std::size_t>(v)] =
          volume.labels[static_cast<std::size_t>(g.index(ijk[0], ijk[1], ijk[2]))];
  }
  return out;
}

std::array<std::int64_t, 6> face_neighbours(const Grid& grid, std::int64_t index) {
  const auto [i, j, k] = grid.ijk(index);
  const auto& d = grid.dims;
  const std::int64_t sy = d[0], sz = d[0] * d[1];
  return {i > 0 ? index - 1 : -1,         i + 1 < d[0] ? index + 1 : -1, j > 0 ? index - sy : -1,
          j + 1 < d[1] ? index + sy : -1, k > 0 ? index - sz : -1,       k + 1 < d[2] ? index + sz : -1};
}

}  // namespace loci::sim::volume
