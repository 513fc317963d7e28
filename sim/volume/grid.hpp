// A voxel grid with its affine (voxel index -> millimetres), and integer label volumes on it. Voxel (i, j, k) sits
// at linear index i + nx (j + ny k): x varies fastest, as NIfTI stores voxels, so a label volume's values are a NIfTI
// file's data in file order.
#pragma once

#include <Eigen/Dense>
#include <array>
#include <cstdint>
#include <vector>

namespace loci::sim::volume {

// The most voxels a label grid made here may hold: labels and fields are indexed by int.
inline constexpr double kMaxGridVoxels = 2147483647.0;

struct Grid {
  std::array<std::int64_t, 3> dims{0, 0, 0};
  Eigen::Matrix4d affine = Eigen::Matrix4d::Identity();  // (i, j, k, 1) -> (x, y, z, 1) in mm

  std::int64_t voxels() const { return dims[0] * dims[1] * dims[2]; }
  std::int64_t index(std::int64_t i, std::int64_t j, std::int64_t k) const { return i + dims[0] * (j + dims[1] * k); }
  std::array<std::int64_t, 3> ijk(std::int64_t index) const {
    return {index % dims[0], (index / dims[0]) % dims[1], index / (dims[0] * dims[1])};
  }
  Eigen::Vector3d mm(std::int64_t index) const {
    const auto v = ijk(index);
    return affine.topLeftCorner<3, 3>() * Eigen::Vector3d(double(v[0]), double(v[1]), double(v[2])) +
           affine.topRightCorner<3, 1>();
  }
  // Length in mm of one step along each voxel axis.
  Eigen::Vector3d spacing_mm() const { return affine.topLeftCorner<3, 3>().colwise().norm().transpose(); }
  double voxel_volume_mm3() const { return std::abs(affine.topLeftCorner<3, 3>().determinant()); }
};

struct LabelVolume {
  Grid grid;
  std::vector<std::int32_t> labels;  // grid.voxels() values; 0 = outside

  std::int64_t count_nonzero() const;
  // The distinct non-zero labels, ascending.
  std::vector<std::int32_t> distinct_labels() const;
};

// For each voxel, the voxel at its mirror image across the plane x = 0 mm, or -1 where that image falls off the
// grid or between voxel centres (an oblique or off-centre grid).
std::vector<std::int64_t> mirror_map(const Grid& grid);

// `volume` on an isotropic grid of `voxel_mm` aligned with the mm axes, each new voxel taking the label of the
// original voxel nearest its centre. The grid covers the labelled voxels; along x its centres sit at +-(k + 1/2)
// voxels, so it is symmetric about x = 0 with no centre on it. Labels smaller than a voxel may vanish.
LabelVolume resample(const LabelVolume& volume, double voxel_mm);

// The face neighbours of a voxel (up to six), or -1 past the grid's edge, in the order -x, +x, -y, +y, -z, +z.
std::array<std::int64_t, 6> face_neighbours(const Grid& grid, std::int64_t index);

}  // namespace loci::sim::volume
