// A synthetic brain mask: an ellipsoid centred on the origin, on an isotropic grid whose voxel centres never lie on
// the plane x = 0, so that the two hemispheres are exact mirror images of each other.
#pragma once

#include <Eigen/Dense>

#include "core/option.hpp"
#include "sim/volume/grid.hpp"

namespace loci::sim::volume {

class EllipsoidOptions {
  LOCI_OPTION(Eigen::Vector3d, semi_axes_mm) = Eigen::Vector3d(70, 85, 60);  // x (left-right), y, z
  LOCI_OPTION(double, voxel_mm) = 4.0;
  LOCI_OPTION(bool, hemispheres) = true;  // label 1 = left (x < 0), 2 = right; else 1 everywhere inside
  LOCI_OPTION(int, margin) = 1;           // empty voxels around the ellipsoid's bounding box
};

// How many voxels ellipsoid_mask's grid holds for these options (a double, so that a tiny voxel cannot overflow it);
// options readers check it to name the key before anything is allocated.
double ellipsoid_voxel_count(const EllipsoidOptions& options);

// std::invalid_argument for a non-positive size or a grid of more than kMaxGridVoxels voxels.
LabelVolume ellipsoid_mask(const EllipsoidOptions& options);

}  // namespace loci::sim::volume
