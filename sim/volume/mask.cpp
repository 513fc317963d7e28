#include "sim/volume/mask.hpp"

#include <cmath>
#include <stdexcept>

namespace loci::sim::volume {

LabelVolume ellipsoid_mask(const EllipsoidOptions& o) {
  const double v = o.voxel_mm();
  if (!(v > 0) || !(o.semi_axes_mm().minCoeff() > 0) || o.margin() < 0)
    throw std::invalid_argument("ellipsoid: voxel size and semi-axes must be > 0 and the margin >= 0");
  LabelVolume out;
  double voxels = 1;
  for (int a = 0; a < 3; ++a) {
    // An even count per axis puts the centres at +-(n + 1/2) voxels, never on a plane through the origin.
    const auto half = static_cast<std::int64_t>(std::ceil(o.semi_axes_mm()[a] / v - 0.5)) + o.margin();
    out.grid.dims[static_cast<std::size_t>(a)] = 2 * std::max<std::int64_t>(half, 1);
    voxels *= static_cast<double>(out.grid.dims[static_cast<std::size_t>(a)]);
    out.grid.affine(a, a) = v;
    out.grid.affine(a, 3) = -0.5 * v * static_cast<double>(out.grid.dims[static_cast<std::size_t>(a)] - 1);
  }
  if (voxels > 2147483647.0) throw std::invalid_argument("ellipsoid: the grid would exceed 2^31 voxels");
  out.labels.assign(static_cast<std::size_t>(out.grid.voxels()), 0);
  for (std::int64_t i = 0; i < out.grid.voxels(); ++i) {
    const Eigen::Vector3d p = out.grid.mm(i).cwiseQuotient(o.semi_axes_mm());
    if (p.squaredNorm() <= 1.0) out.labels[static_cast<std::size_t>(i)] = o.hemispheres() && p.x() > 0 ? 2 : 1;
  }
  return out;
}

}  // namespace loci::sim::volume
