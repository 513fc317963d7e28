#include "parcels_options.hpp"
#include "builtin_regions.hpp"
#include "core/config/fail_at.hpp"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "core/common_options.hpp"
#include "core/config/options.hpp"
#include "core/error.hpp"
#include "core/printable.hpp"
#include "plugins/api/split_keys.hpp"
#include "sim/dynamics/integrator.hpp"
#include "sim/dynamics/model.hpp"
#include "sim/volume/label_names.hpp"

namespace loci::volumetric_parcels {

using config::fail_at;

namespace {

// Simulated activity kept in memory while a split is written; beyond this a config is surely a mistake.
constexpr double kMaxRecordedBytes = 16.0 * (1ull << 30);

constexpr const char* kLabelFileDoc =
    "region names of the atlas's labels, one per token in /token_label: auto = the file beside the NIfTI by "
    "mricron's convention (aal.nii.gz -> aal.nii.txt) when there is one; none; or a file of '<label> <name>' lines";

using K = ParcelsOptions;

const Choices<ParcelsSource> kSources{{"simulate", ParcelsSource::simulate}, {"import", ParcelsSource::imported}};
const Choices<BrainMask> kMasks{{"ellipsoid", BrainMask::ellipsoid}, {"nifti", BrainMask::nifti}};
const Choices<AtlasLabels> kAtlasLabels{
    {"parcels", AtlasLabels::parcels}, {"mask", AtlasLabels::mask}, {"hemispheres", AtlasLabels::hemispheres}};
const Choices<Hemodynamics> kHemodynamics{{"none", Hemodynamics::none}, {"balloon", Hemodynamics::balloon}};

void declare_data(config::OptionTable<K>& t) {
  t.add_choice(
       "source", [](K& k) -> ParcelsSource& { return k.source; }, kSources)
      .doc("simulate volumes, parcels and activity; or import a user's parcellated time series and atlas (import.*)");
  t.add("splits", [](K& k) -> config::Entries<std::int64_t>& { return k.split_sizes; })
      .min(1)
      .doc(
          "split name -> samples (windows of w points); with source: import the splits come from import.subjects: "
          "set {}");
  t.add("subjects", [](K& k) -> config::Entries<std::int64_t>& { return k.subjects_per_split; })
      .min(1)
      .doc("split -> subjects simulated for it; a split's windows come from its own subjects (held out by subject)");
}

void declare_volume(config::OptionTable<K>& t) {
  t.add_choice(
       "volume.mask", [](K& k) -> BrainMask& { return k.mask; }, kMasks)
      .doc("the brain: a synthetic ellipsoid, or a NIfTI label volume (volume.nifti)");
  t.add("volume.semi_axes_mm", [](K& k) -> std::vector<double>& { return k.semi_axes_mm; })
      .min(0)
      .doc("ellipsoid: semi-axes along x (left-right), y, z");
  t.add("volume.voxel_mm", [](K& k) -> double& { return k.ellipsoid.voxel_mm(); })
      .min(0)
      .doc("ellipsoid: voxel size (> 0)");
  t.add("volume.hemispheres", [](K& k) -> bool& {
     return k.ellipsoid.hemispheres();
   }).doc("ellipsoid: two hemispheres split at x = 0, which no parcel crosses");
  t.add("volume.nifti", [](K& k) -> std::string& {
     return k.nifti;
   }).doc("mask: nifti: a NIfTI label volume, e.g. Debian mricron-data's /usr/share/mricron/templates/aal.nii.gz");
  t.add("volume.resample_mm", [](K& k) -> double& { return k.resample_mm; })
      .min(0)
      .doc("nifti: resample the volume to this isotropic voxel size first (nearest voxel); 0 = its own grid");
  t.add_choice(
       "volume.atlas_labels", [](K& k) -> AtlasLabels& { return k.atlas_labels; }, kAtlasLabels)
      .doc(
          "nifti: its labels are the parcels; or their union is parcellated (mask), or their union split at x = 0 "
          "(hemispheres)");
  t.add("volume.label_file", [](K& k) -> std::string& {
     return k.volume_label_file;
   }).doc(std::string("nifti with atlas_labels: parcels: ") + kLabelFileDoc);
  t.add("parcels.count", [](K& k) -> std::int64_t& { return k.parcellation.parcels(); })
      .within(1, 20000)
      .doc("parcels P (tokens); even when mirrored; unused when the atlas labels are the parcels");
  t.add("parcels.lloyd_steps", [](K& k) -> int& { return k.parcellation.lloyd_steps(); })
      .min(0)
      .doc("Lloyd steps from the farthest-point seeds");
  t.add("parcels.size_spread", [](K& k) -> double& { return k.parcellation.size_spread(); })
      .min(0)
      .doc(
          "every parcel within +-spread of its region's mean size (weights balance sizes at each Lloyd step); 0 = "
          "plain Lloyd");
  t.add("parcels.mirror", [](K& k) -> bool& {
     return k.parcellation.mirror();
   }).doc("parcellate the left half and mirror it: parcel p + P/2 is the image of parcel p");
  t.add("parcels.jitter_mm", [](K& k) -> double& { return k.jitter_mm; })
      .min(0)
      .doc(
          "sd of each subject's seed displacement (its own parcellation, same parcel order); 0 = one parcellation "
          "for all");
}

void declare_activity(config::OptionTable<K>& t) {
  t.add("activity.tr_s", [](K& k) -> double& { return k.activity.tr_s; })
      .min(0)
      .doc("seconds per time point (> 0): the balloon model's clock");
  t.add("activity.burn_in", [](K& k) -> std::int64_t& { return k.activity.burn_in; })
      .min(0)
      .doc("points made and dropped at the start of each subject");
  t.add("activity.observation_noise", [](K& k) -> double& { return k.activity.observation_noise; })
      .min(0)
      .doc("sd of white noise added to the standardised signal");
  t.add("activity.field.weight", [](K& k) -> double& {
     return k.activity.field_weight;
   }).doc("weight of the smooth random field's parcel means (0 = off)");
  t.add("activity.field.fwhm_mm", [](K& k) -> double& { return k.activity.field.fwhm_mm(); })
      .min(0)
      .doc("FWHM of the Gaussian that smooths each step's noise (parcels about its size apart correlate)");
  t.add("activity.field.rho", [](K& k) -> double& { return k.activity.field.rho(); })
      .within(0, 0.999999)
      .doc("AR(1) coefficient of the field from one point to the next");
  t.add("activity.network.weight", [](K& k) -> double& {
     return k.activity.network_weight;
   }).doc("weight of network dynamics on the parcels (0 = off)");
  t.add("activity.network.model", [](K& k) -> std::string& { return k.activity.network.model; })
      .choices(sim::dynamics::model_names())
      .doc("a model of sim/dynamics (see `loci config schema network_dynamics`)");
  t.add("activity.network.integrator", [](K& k) -> std::string& { return k.activity.network.integrator; })
      .choices(sim::dynamics::integrator_names())
      .doc("stochastic integrator");
  t.add("activity.network.params", [](K& k) -> config::Entries<double>& { return k.network_params; })
      .doc(
          "model parameters that differ from their defaults, e.g. {g: 2} (names as dynamics.<model>.* of "
          "network_dynamics)");
  t.add("activity.network.coupling_mm", [](K& k) -> double& { return k.activity.network.coupling_mm; })
      .min(0)
      .doc("W_ij = exp(-d_ij / coupling_mm) between parcel centroids, columns normalised (> 0)");
  t.add("activity.network.dt", [](K& k) -> double& { return k.activity.network.simulation.dt(); })
      .min(0)
      .doc("integration step (model time units; > 0)");
  t.add("activity.network.burn_in", [](K& k) -> std::int64_t& { return k.activity.network.simulation.burn_in(); })
      .min(0)
      .doc("steps integrated and discarded before the first point");
  t.add("activity.network.steps_per_point",
        [](K& k) -> std::int64_t& { return k.activity.network.simulation.subsample(); })
      .min(1)
      .doc("integration steps per time point (a step lasts tr_s / steps_per_point seconds)");
  t.add("activity.network.velocity_m_s", [](K& k) -> double& { return k.activity.network.velocity_m_s; })
      .min(0)
      .doc(
          "conduction velocity: parcel j reaches parcel i d_ij / velocity later, rounded to whole steps (0 = no "
          "delays)");
  t.add_choice(
       "activity.hemodynamics", [](K& k) -> Hemodynamics& { return k.hemodynamics; }, kHemodynamics)
      .doc("balloon: the activity drives the balloon model and the BOLD signal is kept");
  t.add("activity.balloon.kappa", [](K& k) -> double& { return k.activity.hemodynamics.kappa(); })
      .min(0)
      .doc("decay of the vasodilatory signal, 1/s");
  t.add("activity.balloon.gamma", [](K& k) -> double& { return k.activity.hemodynamics.gamma(); })
      .min(0)
      .doc("autoregulation, 1/s");
  t.add("activity.balloon.tau", [](K& k) -> double& { return k.activity.hemodynamics.tau(); })
      .min(0)
      .doc("transit time, s");
  t.add("activity.balloon.alpha", [](K& k) -> double& { return k.activity.hemodynamics.alpha(); })
      .min(0)
      .doc("Grubb's exponent");
  t.add("activity.balloon.e0", [](K& k) -> double& { return k.activity.hemodynamics.e0(); })
      .within(0, 1)
      .doc("resting oxygen extraction fraction");
  t.add("activity.balloon.v0", [](K& k) -> double& { return k.activity.hemodynamics.v0(); })
      .min(0)
      .doc("resting venous blood volume fraction");
  t.add("activity.balloon.gain", [](K& k) -> double& { return k.activity.hemodynamics.gain(); })
      .min(0)
      .doc("neural efficacy: the input is gain x (standardised activity)");
}

void declare_windows_and_import(config::OptionTable<K>& t) {
  t.add("windows.length", [](K& k) -> std::int64_t& { return k.window; })
      .min(1)
      .doc("w: time points per sample; a token is one parcel's w values");
  t.add("windows.stride", [](K& k) -> std::int64_t& { return k.stride; })
      .min(0)
      .doc("points between the starts of a subject's consecutive windows; 0 = length");
  t.add("import.subjects", [](K& k) -> config::Node& { return k.import_subjects; })
      .doc(
          "source: import: split -> list of files, one per subject: time x parcels, HDF5 (.h5) or text (.csv, .tsv); "
          "or 4-D NIfTI runs (.nii, .nii.gz), whose voxels are the tokens (import.voxel_block), all on one grid");
  t.add("import.dataset", [](K& k) -> std::string& {
     return k.import_dataset;
   }).doc("HDF5 files: the dataset holding the series; \"\" = the file's only 2-D dataset");
  t.add("import.atlas", [](K& k) -> std::string& { return k.atlas; })
      .doc(
          "the parcels of the columns: a NIfTI label volume (ascending labels) or a table of centroids in mm (one row "
          "per parcel: columns x, y, z named in a header, or the only three); \"\" with 4-D NIfTI subjects, whose "
          "voxels place the tokens");
  t.add("import.standardize", [](K& k) -> bool& { return k.standardize; })
      .doc(
          "z-score each token's series over all of its subject file's time points (before import.points cuts "
          "it), as the simulated signal is standardised per parcel; a constant series becomes zeros. false = the "
          "values as the files hold them (raw scanner intensities, for a NIfTI run)");
  t.add("import.voxel_block", [](K& k) -> std::int64_t& { return k.voxel_block; })
      .min(1)
      .doc(
          "4-D NIfTI subjects: one token per block of b x b x b voxels (smaller at the grid's far edges), its series "
          "the mean of the block's voxels, its position their mean in mm (the file's sform, else qform); voxels "
          "whose series is constant in the first subject (outside the brain) are left out; 1 = every voxel a token");
  t.add("import.label_file", [](K& k) -> std::string& {
     return k.import_label_file;
   }).doc(std::string("a NIfTI import.atlas: ") + kLabelFileDoc);
  t.add("import.points", [](K& k) -> config::Node& { return k.import_points; })
      .doc(
          "split -> [first, end): only those time points of each of the split's files (end -1: to the file's end), so "
          "one subject's series can give a training and a held-out split in time; {} = every point");
  t.add("import.regions", [](K& k) -> std::string& { return k.import_regions; })
      .doc(
          "a table of the series columns to keep and the atlas region each is placed at (a file, or builtin:nitime_aal "
          "for nitime's resting-state regions at AAL's): lines 'column,region' "
          "(a header line 'column,region' first; '#' comments), region names as the atlas's label file spells them; "
          "the tokens follow the table's order, the series' other columns are left out (named in the card). Needs a "
          "NIfTI import.atlas with a label file and series files with a header. \"\" = every column, in the "
          "atlas's label order");
}

const config::OptionTable<K>& table() {
  static const config::OptionTable<K> t = [] {
    config::OptionTable<K> t;
    declare_data(t);
    declare_volume(t);
    declare_activity(t);
    declare_windows_and_import(t);
    return t;
  }();
  return t;
}

// A bound the schema cannot state (> 0), reported at the value's own position.
// The label file a key names: auto finds the one beside the atlas, if any; "" = none. A file named outright must be
// one, and only where the atlas's labels are the tokens.
std::string label_file(const config::Node& r, const std::string& key, const std::string& value,
                       const std::string& nifti, bool applies, const std::string& why_not) {
  if (value == "none" || (value == "auto" && !applies)) return "";
  if (value == "auto") return sim::volume::label_file_beside(nifti);
  if (!applies) fail_at(r.at(key), "'" + key + "' names regions of an atlas's own labels: " + why_not);
  std::error_code ec;
  if (!std::filesystem::is_regular_file(value, ec))
    fail_at(r.at(key), "'" + key + "': " + value + ": not a readable file");
  return value;
}

double positive(const config::Node& r, const std::string& key, double v) {
  if (!(v > 0)) fail_at(r.at(key), "'" + key + "' must be > 0");
  return v;
}

void read_volume(const config::Node& r, ParcelsOptions& o) {
  const auto& axes = r.at("volume.semi_axes_mm");
  if (o.semi_axes_mm.size() != 3) fail_at(axes, "'volume.semi_axes_mm' needs three values (x, y, z)");
  Eigen::Vector3d a;
  for (int i = 0; i < 3; ++i) {
    a[i] = o.semi_axes_mm[static_cast<std::size_t>(i)];
    if (!(a[i] > 0)) fail_at(axes.items()[static_cast<std::size_t>(i)], "'volume.semi_axes_mm' values must be > 0");
  }
  o.ellipsoid.semi_axes_mm(a);
  positive(r, "volume.voxel_mm", o.ellipsoid.voxel_mm());
  if (o.mask == BrainMask::ellipsoid && sim::volume::ellipsoid_voxel_count(o.ellipsoid) > sim::volume::kMaxGridVoxels)
    fail_at(r.at("volume.voxel_mm"), "'volume.voxel_mm' is too small: the ellipsoid's grid would exceed 2^31 voxels");
  o.nifti_mark = r.at("volume.nifti").mark();
  o.resample_mark = r.at("volume.resample_mm").mark();
  if (o.mask == BrainMask::nifti && o.nifti.empty())
    fail_at(r.at("volume.nifti"), "mask: nifti needs 'volume.nifti', a label volume");
  o.label_file = label_file(r, "volume.label_file", o.volume_label_file, o.nifti,
                            o.mask == BrainMask::nifti && o.atlas_labels == AtlasLabels::parcels,
                            "it needs volume.mask: nifti with volume.atlas_labels: parcels");
  o.label_file_mark = r.at("volume.label_file").mark();
  o.parcellation.threads(o.threads);
  o.parcellation_mark = r.at("parcels").mark();
}

void read_activity(const config::Node& r, ParcelsOptions& o) {
  auto& a = o.activity;
  o.activity_mark = r.at("activity").mark();
  positive(r, "activity.tr_s", a.tr_s);
  a.field.threads(o.threads);
  if (a.field_weight == 0 && a.network_weight == 0)
    fail_at(r.at("activity.field.weight"), "activity.field.weight and activity.network.weight are both 0: no activity");
  auto& n = a.network;
  for (const auto& [name, value] : o.network_params) n.params[name] = value;
  if (a.network_weight != 0) {
    try {
      sim::dynamics::make_model(n.model, n.params);  // checks the names and ranges now, at the key's position
    } catch (const std::invalid_argument& e) {
      fail_at(r.at("activity.network.params"), e.what());
    }
  }
  positive(r, "activity.network.coupling_mm", n.coupling_mm);
  positive(r, "activity.network.dt", n.simulation.dt());
  a.balloon = o.hemodynamics == Hemodynamics::balloon;
  const auto& b = a.hemodynamics;
  for (const auto& [key, value] : {std::pair<const char*, double>{"activity.balloon.kappa", b.kappa()},
                                   {"activity.balloon.gamma", b.gamma()},
                                   {"activity.balloon.tau", b.tau()},
                                   {"activity.balloon.alpha", b.alpha()},
                                   {"activity.balloon.e0", b.e0()},
                                   {"activity.balloon.v0", b.v0()}})
    positive(r, key, value);
  if (!(b.e0() < 1)) fail_at(r.at("activity.balloon.e0"), "'activity.balloon.e0' must be < 1");
}

void read_subjects(const config::Node& r, ParcelsOptions& o) {
  const auto& splits = r.at("splits");
  const auto& subjects = r.at("subjects");
  plugins::check_split_keys(subjects, "subjects", splits, {"train", "test"});
  double recorded_bytes = 0;
  for (const auto& [name, count] : splits.entries()) {
    SubjectPlan p;
    p.name = name;
    p.windows = plugins::split_windows(name, count, subjects, "`subjects`", o.window, o.stride,
                                       "how many subjects its windows are cut from");
    if (subjects.find(name)) {
      p.first_subject = o.subjects;
      o.subjects += p.windows.used();
    }
    recorded_bytes +=
        4.0 * static_cast<double>(p.windows.used()) * static_cast<double>(p.windows.points() + o.activity.burn_in);
    o.splits.push_back(p);
  }
  // Parcels are not known yet (an atlas may set them); the bound uses the configured count.
  if (recorded_bytes * static_cast<double>(o.parcellation.parcels()) > kMaxRecordedBytes)
    fail_at(splits, "'splits' with windows.length = " + std::to_string(o.window) +
                        " would record over 16 GiB of activity: ask for fewer samples, subjects or parcels, a shorter "
                        "windows.length, or let windows overlap (a smaller windows.stride)");
}

// import.regions' table: 'column,region' lines after a header, '#' comments and blank lines skipped; every column
// and every region at most once.
std::vector<std::pair<std::string, std::string>> read_region_map(const std::string& file, const config::Mark& mark) {
  std::string text;
  if (const auto builtin = builtin_region_table(file)) {
    text = *builtin;
  } else {
    if (file.rfind("builtin:", 0) == 0)
      throw UserError(mark.str() + ": import.regions: no built-in table '" + printable(file) +
                      "' (builtin:nitime_aal)");
    std::ifstream f(file);
    if (!f) throw UserError(mark.str() + ": import.regions: cannot read " + file);
    std::ostringstream all;
    all << f.rdbuf();
    text = all.str();
  }
  std::istringstream in(text);
  std::vector<std::pair<std::string, std::string>> out;
  std::set<std::string> columns, regions;
  auto trim = [](std::string x) {
    const auto a = x.find_first_not_of(" \t\r"), b = x.find_last_not_of(" \t\r");
    return a == std::string::npos ? std::string() : x.substr(a, b - a + 1);
  };
  std::string line;
  bool header = true;
  for (int n = 1; std::getline(in, line); ++n) {
    line = trim(line);
    if (line.empty() || line[0] == '#') continue;
    const auto comma = line.find(',');
    const std::string where = file + ":" + std::to_string(n) + ": ";
    if (comma == std::string::npos || line.find(',', comma + 1) != std::string::npos)
      throw UserError(where + "expected 'column,region', found '" + printable(line) + "'");
    const std::string column = trim(line.substr(0, comma)), region = trim(line.substr(comma + 1));
    if (header) {
      if (column != "column" || region != "region")
        throw UserError(where + "the first line must be the header 'column,region'");
      header = false;
      continue;
    }
    if (column.empty() || region.empty()) throw UserError(where + "a column and a region are both needed");
    if (!columns.insert(column).second) throw UserError(where + "column '" + printable(column) + "' is mapped twice");
    if (!regions.insert(region).second)
      throw UserError(where + "region '" + printable(region) +
                      "' is given to two columns (two tokens at one centroid)");
    out.emplace_back(column, region);
  }
  if (out.empty()) throw UserError(mark.str() + ": import.regions: " + file + " maps no column");
  return out;
}

// 4-D NIfTI subjects (every file, or none) carry their own positions: no atlas, no region table.
void read_voxel_series(const config::Node& r, ParcelsOptions& o) {
  const SubjectFiles& first = o.imports.front();
  o.voxel_series = is_nifti_name(first.files.front());
  for (const auto& s : o.imports)
    for (std::size_t k = 0; k < s.files.size(); ++k)
      if (is_nifti_name(s.files[k]) != o.voxel_series)
        throw UserError(s.marks[k].str() + ": import.subjects." + s.name + ": " + s.files[k] + " is " +
                        (o.voxel_series ? "not " : "") + "a NIfTI file but " + first.files.front() + " is" +
                        (o.voxel_series ? "" : " not") + ": every subject is a 4-D NIfTI run, or none is");
  if (!o.voxel_series) {
    if (o.voxel_block != 1)
      fail_at(r.at("import.voxel_block"), "import.voxel_block applies to 4-D NIfTI subjects; these are tables");
    return;
  }
  if (!o.atlas.empty())
    fail_at(r.at("import.atlas"), "4-D NIfTI subjects place each token at its own voxels: leave import.atlas empty");
  if (!o.import_regions.empty())
    fail_at(r.at("import.regions"), "4-D NIfTI subjects have no named columns to place: leave import.regions empty");
  o.label_file = label_file(r, "import.label_file", o.import_label_file, "", false, "4-D NIfTI subjects have no atlas");
}

void read_import(const config::Node& r, ParcelsOptions& o) {
  for (const auto& [name, count] : r.at("splits").entries())
    fail_at(count, "source: import makes its splits from import.subjects; set `splits: {}` (found '" + name + "')");
  const auto& subjects = r.at("import.subjects");  // as o.import_subjects, with its positions
  if (subjects.entries().empty()) fail_at(subjects, "source: import needs import.subjects: split -> list of files");
  for (const auto& [name, files] : subjects.entries()) {
    if (!files.is_sequence() || files.items().empty())
      fail_at(files, "import.subjects." + name + " must be a list of files, one per subject");
    SubjectFiles s;
    s.name = name;
    for (const auto& f : files.items()) {
      if (!f.is_scalar() || f.text().empty()) fail_at(f, "import.subjects." + name + ": expected a file name");
      s.files.push_back(f.text());
      s.marks.push_back(f.mark());
    }
    const config::Node& all_points = r.at("import.points");
    if (const config::Node* points = all_points.is_map() ? all_points.find(name) : nullptr) {
      const auto& range = points->items();
      if (!points->is_sequence() || range.size() != 2)
        fail_at(*points, "import.points." + name + " must be [first, end) time points (end -1: to the file's end)");
      s.first_point = range[0].as_int();
      s.end_point = range[1].as_int();
      if (s.first_point < 0 || (s.end_point != -1 && s.end_point <= s.first_point))
        fail_at(*points, "import.points." + name + " = [" + range[0].text() + ", " + range[1].text() +
                             "] is empty or starts before point 0");
      s.points_mark = points->mark();
    }
    o.imports.push_back(std::move(s));
  }
  const config::Node& all_points = r.at("import.points");
  if (!all_points.is_null() && !all_points.is_map() && !(all_points.is_scalar() && all_points.text().empty()))
    fail_at(all_points, "import.points takes a mapping: split -> [first, end)");
  if (all_points.is_map())
    for (const auto& [name, points] : all_points.entries())
      if (!subjects.find(name)) fail_at(points, "import.points." + name + ": no such split in import.subjects");
  o.atlas_mark = r.at("import.atlas").mark();
  read_voxel_series(r, o);
  if (o.voxel_series) return;
  if (o.atlas.empty())
    fail_at(r.at("import.atlas"), "source: import needs import.atlas (NIfTI labels or centroid CSV)");
  o.label_file = label_file(r, "import.label_file", o.import_label_file, o.atlas, is_nifti_name(o.atlas),
                            "import.atlas is a table of centroids, not a NIfTI label volume");
  o.label_file_mark = r.at("import.label_file").mark();
  o.import_regions_mark = r.at("import.regions").mark();
  if (!o.import_regions.empty()) {
    if (!is_nifti_name(o.atlas) || o.label_file.empty())
      fail_at(r.at("import.regions"),
              "import.regions places columns at an atlas's named regions: it needs a NIfTI "
              "import.atlas with a label file (import.label_file)");
    o.region_map = read_region_map(o.import_regions, o.import_regions_mark);
  }
}

}  // namespace

bool is_nifti_name(std::string name) {
  std::transform(name.begin(), name.end(), name.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  for (const std::string e : {".nii", ".nii.gz", ".hdr", ".hdr.gz", ".img", ".img.gz"})
    if (name.size() > e.size() && name.compare(name.size() - e.size(), std::string::npos, e) == 0) return true;
  return false;
}

const char* schema_text() {
  static const std::string text = table().schema();
  return text.c_str();
}

// Where the plugin's defaults are not sim's: Experiment 3's settings (a mirrored parcellation, a field twice sim's
// width, a burn-in and some noise, ten integration steps per TR).
ParcelsOptions::ParcelsOptions() {
  const Eigen::Vector3d axes = ellipsoid.semi_axes_mm();
  semi_axes_mm = {axes[0], axes[1], axes[2]};
  parcellation.mirror(true);
  activity.field.fwhm_mm(24);
  activity.burn_in = 20;
  activity.observation_noise = 0.1;
  activity.network.simulation.subsample(10);
}

std::string choice_name(ParcelsSource value) { return loci::choice_name(kSources, value); }
std::string choice_name(BrainMask value) { return loci::choice_name(kMasks, value); }
std::string choice_name(AtlasLabels value) { return loci::choice_name(kAtlasLabels, value); }
std::string choice_name(Hemodynamics value) { return loci::choice_name(kHemodynamics, value); }

ParcelsOptions read_options(const config::Node& r) {
  ParcelsOptions o;
  table().read(r, o);
  GeneratorCommon common;
  generator_common_options().read(r, common);
  o.seed = static_cast<std::uint64_t>(common.seed);
  o.threads = common.threads;
  if (o.stride == 0) o.stride = o.window;
  if (o.imported()) {
    read_import(r, o);
    return o;
  }
  read_volume(r, o);
  read_activity(r, o);
  read_subjects(r, o);
  return o;
}

}  // namespace loci::volumetric_parcels
