// NIfTI label volumes and 4-D series through Debian's libnifti2 (NIfTI-1 and NIfTI-2, .nii, .nii.gz, .hdr/.img). The
// library's own messages are silenced: a problem is one std::runtime_error that starts with the file's path.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sim/volume/grid.hpp"

namespace loci::sim::volume {

// A 3-D volume of non-negative integer labels (any integer datatype, or floats holding integers; scl_slope and
// scl_inter applied when set). The affine is the sform when its code is set, else the qform (which the library
// builds from pixdim alone for an old ANALYZE header).
LabelVolume read_nifti_labels(const std::string& path);

// Writes int32 labels with the affine as both sform and qform (the qform keeps only its rigid part and voxel
// sizes, as NIfTI defines it), intent "label", units mm. The extension picks the format: .nii, .nii.gz, ...
void write_nifti_labels(const std::string& path, const LabelVolume& volume);

// A 4-D image: `points` volumes of one grid (an fMRI run), values as float with scl_slope and scl_inter applied,
// stored as the file stores them: point t's volume is values[t * voxels, (t + 1) * voxels).
struct SeriesVolume {
  Grid grid;
  std::int64_t points = 0;
  std::vector<float> values;

  float at(std::int64_t voxel, std::int64_t point) const {
    return values[static_cast<std::size_t>(point * grid.voxels() + voxel)];
  }
};

// Any numeric datatype; a 3-D file is a series of one point. The affine as read_nifti_labels takes it.
SeriesVolume read_nifti_series(const std::string& path);

// Writes float32 values with the affine as write_nifti_labels writes it, time unit seconds at `tr_s` per point.
void write_nifti_series(const std::string& path, const SeriesVolume& series, double tr_s = 1.0);

}  // namespace loci::sim::volume
