// What a volumetric_parcels dataset says about itself: the dataset card's prose and `loci inspect --show` text.
#pragma once

#include <Eigen/Dense>
#include <string>
#include <vector>

#include "datasets/spec.hpp"
#include "parcels_options.hpp"

namespace loci::volumetric_parcels {

// Facts found while configuring that the prose reports.
struct CardFacts {
  std::int64_t parcels = 0;
  std::int64_t mask_voxels = 0;  // voxels in parcels
  std::int64_t dropped = 0;      // mask voxels in no parcel
  std::int64_t moved = 0;        // voxels the connectivity repair moved
  double min_volume_mm3 = 0, max_volume_mm3 = 0;
  std::int64_t edges = 0;                 // parcel pairs sharing a face
  bool atlas_parcels = false;             // the labels of a NIfTI atlas are the parcels
  bool has_volume = true;                 // import with a centroid table: no label volume
  std::string grid;                       // "nx x ny x nz voxels of a x b x c mm"
  std::vector<std::string> token_labels;  // region names from the atlas's label file, by token; empty = none
  std::vector<std::string> left_out;      // import.regions: series columns not kept
};

std::string card_prose(const ParcelsOptions& o, const CardFacts& facts);

// The window's subject and points, then one line per parcel (the first 12): its centroid and its values as shades.
std::string render_window(const datasets::SampleSlots& sample, const Eigen::MatrixXd& centroids, std::int64_t window);

}  // namespace loci::volumetric_parcels
