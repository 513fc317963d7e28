// NIfTI label volumes through Debian's libnifti2 (NIfTI-1 and NIfTI-2, .nii, .nii.gz, .hdr/.img). The library's own
// messages are silenced: a problem is one std::runtime_error that starts with the file's path.
#pragma once

#include <string>

#include "sim/volume/grid.hpp"

namespace loci::sim::volume {

// A 3-D volume of non-negative integer labels (any integer datatype, or floats holding integers; scl_slope and
// scl_inter applied when set). The affine is the sform when its code is set, else the qform (which the library
// builds from pixdim alone for an old ANALYZE header).
LabelVolume read_nifti_labels(const std::string& path);

// Writes int32 labels with the affine as both sform and qform (the qform keeps only its rigid part and voxel
// sizes, as NIfTI defines it), intent "label", units mm. The extension picks the format: .nii, .nii.gz, ...
void write_nifti_labels(const std::string& path, const LabelVolume& volume);

}  // namespace loci::sim::volume
