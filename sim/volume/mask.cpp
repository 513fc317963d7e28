#include "sim/volume/mask.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace loci::sim::volume {
namespace {

// An even count per axis puts the centres at +-(n + 1/2) voxels, never on a plane through the origin.
double voxels_along(const EllipsoidOptions& o, int axis) {
  const double half = std::ceil(o.semi_axes_mm()[axis] / o.voxel_mm() - 0.5) + o.margin();
  return 2 * std::max(half, 1.0);
}

}  // namespace

double ellipsoid_voxel_count(const EllipsoidOptions& o) {
  return voxels_along(o, 0) * voxels_along(o, 1) * voxels_along(o, 2);
}

LabelVolume ellipsoid_mask(const EllipsoidOptions& o) {
  const double v = o.voxel_mm();
  if (!(v > 0) || !(o.semi_axes_mm().minCoeff() > 0) || o.margin() < 0)
    throw std::invalid_argument("ellipsoid: voxel size and semi-axes must be > 0 and the margin >= 0");
  if (ellipsoid_voxel_count(o) > kMaxGridVoxels)
    throw std::invalid_argument("ellipsoid: the grid would exceed 2^31 voxels");
  LabelVolume out;
  for (int a = 0; a < 3; ++a) {
    out.grid.dims[static_cast<std::size_t>(a)] = static_cast<std::int64_t>(voxels_along(o, a));
    out.grid.affine(a, a) = v;
    out.grid.affine(a, 3) = -0.5 * v * static_cast<double>(out.grid.dims[static_cast<std::size_t>(a)] - 1);
  }
  out.labels.assign(static_cast<std::size_t>(out.grid.voxels()), 0);
  for (std::int64_t i = 0; i < out.grid.voxels(); ++i) {
    const Eigen::Vector3d p = out.grid.mm(i).cwiseQuotient(o.semi_axes_mm());
    if (p.squaredNorm() <= 1.0) out.labels[static_cast<std::size_t>(i)] = o.hemispheres() && p.x() > 0 ? 2 : 1;
  }
  return out;
}

}  // namespace loci::sim::volume
