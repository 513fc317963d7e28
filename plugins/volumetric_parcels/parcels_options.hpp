// The volumetric_parcels config: its schema and the resolved YAML read once into plain values, a plan of subjects
// per split (simulated) or the files of each split's subjects (imported).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/choices.hpp"
#include "core/config/node.hpp"
#include "datasets/windows.hpp"
#include "sim/volume/activity.hpp"
#include "sim/volume/mask.hpp"
#include "sim/volume/parcellate.hpp"

namespace loci::volumetric_parcels {

const char* schema_text();

// A simulated split: its windows come from its own subjects, numbered across splits in the order of `splits`.
struct SubjectPlan {
  std::string name;
  datasets::WindowPlan windows;  // recordings = subjects
  std::int64_t first_subject = 0;
};

// An imported split's subjects: one time-series file each.
struct SubjectFiles {
  std::string name;
  std::vector<std::string> files;
  std::vector<config::Mark> marks;               // where each file is named, for errors
  std::int64_t first_point = 0, end_point = -1;  // import.points: the time points [first, end) taken (-1: to the end)
  config::Mark points_mark;
};

// The keys as read, bound once in parcels_options.cpp's table to sim's own options (mask, parcellation, activity,
// so their defaults are sim's) where sim has them; the constructor sets the few where the plugin's differ.
// The closed choices (their names declared once in parcels_options.cpp): the data simulated or imported
// (import.*); the brain an ellipsoid or a NIfTI label volume; a NIfTI's labels taken as the parcels, or their union
// parcellated here (mask) or first split at x = 0 (hemispheres); the activity kept, or its BOLD signal (balloon).
enum class ParcelsSource { simulate, imported };
enum class BrainMask { ellipsoid, nifti };
enum class AtlasLabels { parcels, mask, hemispheres };
enum class Hemodynamics { none, balloon };
// Their names, as a recorded config and the shards' attributes write them.
std::string choice_name(ParcelsSource value);
std::string choice_name(BrainMask value);
std::string choice_name(AtlasLabels value);
std::string choice_name(Hemodynamics value);

struct ParcelsOptions {
  ParcelsOptions();

  std::uint64_t seed = 0;
  int threads = 0;
  ParcelsSource source = ParcelsSource::simulate;
  bool imported() const { return source == ParcelsSource::imported; }

  BrainMask mask = BrainMask::ellipsoid;
  sim::volume::EllipsoidOptions ellipsoid;
  std::vector<double> semi_axes_mm;  // as written; read into ellipsoid
  std::string nifti;
  config::Mark nifti_mark;
  AtlasLabels atlas_labels = AtlasLabels::parcels;  // nifti only
  double resample_mm = 0;                           // nifti: 0 = the file's grid
  config::Mark resample_mark;
  std::string volume_label_file = "auto";  // as written; resolved into label_file
  sim::volume::ParcellationOptions parcellation;
  config::Mark parcellation_mark;
  double jitter_mm = 0;

  Hemodynamics hemodynamics = Hemodynamics::none;
  sim::volume::ActivityOptions activity;
  config::Mark activity_mark;
  std::vector<std::pair<std::string, double>> network_params;  // as written; read into activity.network.params
  std::int64_t window = 50;
  std::int64_t stride = 0;  // 0 as written means `window`; read_options resolves it
  std::vector<std::pair<std::string, std::int64_t>> split_sizes{{"train", 800}, {"test", 100}};     // as written
  std::vector<std::pair<std::string, std::int64_t>> subjects_per_split{{"train", 8}, {"test", 2}};  // as written
  std::vector<SubjectPlan> splits;
  std::int64_t subjects = 0;  // simulated, all splits

  // The atlas's region names (volume.label_file or import.label_file, resolved); "" = none.
  std::string label_file;
  config::Mark label_file_mark;

  config::Node import_subjects;  // as written; read into imports
  std::vector<SubjectFiles> imports;
  std::string import_dataset;
  std::string atlas;
  std::string import_label_file = "auto";  // as written; resolved into label_file
  // import.regions: a table naming, for each series column kept, the atlas region at whose centroid it sits (in
  // the table's order: the tokens); the file's other columns are left out. Empty: every column, the atlas's labels.
  std::string import_regions;
  config::Mark import_regions_mark;
  config::Node import_points;                                   // as written: split -> [first, end)
  std::vector<std::pair<std::string, std::string>> region_map;  // (series column, atlas region name)
  config::Mark atlas_mark;
  // The subjects are 4-D NIfTI runs: a token is a block of voxel_block^3 voxels at its voxels' mean position.
  bool voxel_series = false;
  std::int64_t voxel_block = 1;
  bool standardize = false;  // import.standardize: z-score each token's series per subject file
};

// Whether a file name is a NIfTI volume's (.nii, .nii.gz, .hdr, .img and their .gz), by its ending, any case.
bool is_nifti_name(std::string name);

// Reads and checks every key; a problem is a UserError at the offending key's position.
ParcelsOptions read_options(const config::Node& resolved);

}  // namespace loci::volumetric_parcels
