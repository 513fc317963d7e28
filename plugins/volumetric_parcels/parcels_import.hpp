// source: import: a user's parcellated time series (one file per subject, time x parcels) and their atlas (a NIfTI
// label volume whose ascending labels are the columns, or a table of centroids in mm), or 4-D NIfTI runs whose voxel
// blocks are the parcels; read and checked up front.
#pragma once

#include <Eigen/Dense>
#include <cstdint>
#include <string>
#include <vector>

#include "parcels_options.hpp"
#include "sim/volume/grid.hpp"
#include "sim/volume/parcel_facts.hpp"

namespace loci::volumetric_parcels {

struct ImportedSubject {
  std::string file;
  std::int64_t points = 0;
  std::vector<float> series;  // parcels x points, parcel-major (the file's transpose)
  std::int64_t windows = 0;   // (points - w) / stride + 1
};

struct ImportedSplitData {
  std::string name;
  std::vector<ImportedSubject> subjects;
  std::int64_t samples = 0;                // all windows of all its subjects, subject by subject
  std::vector<std::int64_t> first_sample;  // per subject
};

struct Atlas {
  Eigen::MatrixXd centroids;           // P x 3, mm
  bool has_volume = false;             // a NIfTI atlas: the rest is known too
  sim::volume::LabelVolume labels;     // relabelled 1..P
  std::vector<std::int32_t> original;  // the file's label of each parcel
  sim::volume::ParcelFacts facts;
  std::int64_t constant_voxels = 0;  // 4-D NIfTI subjects: voxels left out, their series constant
};

// Throws UserError naming the config key and the file for every problem.
Atlas read_atlas(const ParcelsOptions& o);
// With 4-D NIfTI subjects the atlas is their voxel blocks, read from the first subject.
std::vector<ImportedSplitData> read_subjects(const ParcelsOptions& o, const Atlas& atlas);
// With import.regions: the columns of `file`'s header that the table does not keep, for the card.
std::vector<std::string> left_out_columns(const ParcelsOptions& o, const std::string& file);

}  // namespace loci::volumetric_parcels
