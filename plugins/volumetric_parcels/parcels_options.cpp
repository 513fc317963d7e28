#include "parcels_options.hpp"

#include <sstream>

#include "plugins/api/config/split_keys.hpp"
#include "plugins/api/error.hpp"
#include "sim/dynamics/integrator.hpp"
#include "sim/dynamics/model.hpp"

namespace loci::volumetric_parcels {

namespace {

// Simulated activity kept in memory while a split is written; beyond this a config is surely a mistake.
constexpr double kMaxRecordedBytes = 16.0 * (1ull << 30);

std::string choices(const std::vector<std::string>& names) {
  std::string out = "[";
  for (std::size_t i = 0; i < names.size(); ++i) out += (i ? ", " : "") + names[i];
  return out + "]";
}

std::string build_schema() {
  std::ostringstream s;
  s << R"yaml(source: {type: enum, values: [simulate, import], default: simulate,
         doc: "simulate volumes, parcels and activity; or import a user's parcellated time series and atlas (import.*)"}
splits: {type: map, of: int, min: 1, default: {train: 800, test: 100},
         doc: "split name -> samples (windows of w points); with source: import the splits come from import.subjects: set {}"}
subjects: {type: map, of: int, min: 1, default: {train: 8, test: 2},
           doc: "split -> subjects simulated for it; a split's windows come from its own subjects (held out by subject)"}
volume:
  mask: {type: enum, values: [ellipsoid, nifti], default: ellipsoid,
         doc: "the brain: a synthetic ellipsoid, or a NIfTI label volume (volume.nifti)"}
  semi_axes_mm: {type: list, of: float, min: 0, default: [70, 85, 60], doc: "ellipsoid: semi-axes along x (left-right), y, z"}
  voxel_mm: {type: float, default: 4, min: 0, doc: "ellipsoid: voxel size (> 0)"}
  hemispheres: {type: bool, default: true, doc: "ellipsoid: two hemispheres split at x = 0, which no parcel crosses"}
  nifti: {type: string, default: "",
          doc: "mask: nifti: a NIfTI label volume, e.g. Debian mricron-data's /usr/share/mricron/templates/aal.nii.gz"}
  resample_mm: {type: float, default: 0, min: 0,
                doc: "nifti: resample the volume to this isotropic voxel size first (nearest voxel); 0 = its own grid"}
  atlas_labels: {type: enum, values: [parcels, mask, hemispheres], default: parcels,
                 doc: "nifti: its labels are the parcels; or their union is parcellated (mask), or their union split at x = 0 (hemispheres)"}
parcels:
  count: {type: int, default: 100, min: 1, max: 20000, doc: "parcels P (tokens); even when mirrored; unused when the atlas labels are the parcels"}
  lloyd_steps: {type: int, default: 30, min: 0, doc: "Lloyd steps from the farthest-point seeds"}
  size_spread: {type: float, default: 0.25, min: 0,
                doc: "every parcel within +-spread of its region's mean size (weights balance sizes at each Lloyd step); 0 = plain Lloyd"}
  mirror: {type: bool, default: true, doc: "parcellate the left half and mirror it: parcel p + P/2 is the image of parcel p"}
  jitter_mm: {type: float, default: 0, min: 0,
              doc: "sd of each subject's seed displacement (its own parcellation, same parcel order); 0 = one parcellation for all"}
activity:
  tr_s: {type: float, default: 1, min: 0, doc: "seconds per time point (> 0): the balloon model's clock"}
  burn_in: {type: int, default: 20, min: 0, doc: "points made and dropped at the start of each subject"}
  observation_noise: {type: float, default: 0.1, min: 0, doc: "sd of white noise added to the standardised signal"}
  field:
    weight: {type: float, default: 1, doc: "weight of the smooth random field's parcel means (0 = off)"}
    fwhm_mm: {type: float, default: 24, min: 0, doc: "FWHM of the Gaussian that smooths each step's noise (parcels about its size apart correlate)"}
    rho: {type: float, default: 0.9, min: 0, max: 0.999999, doc: "AR(1) coefficient of the field from one point to the next"}
  network:
    weight: {type: float, default: 0, doc: "weight of network dynamics on the parcels (0 = off)"}
)yaml";
  s << "    model: {type: enum, values: " << choices(sim::dynamics::model_names())
    << ", default: rate, doc: \"a model of sim/dynamics (see `loci config schema network_dynamics`)\"}\n";
  s << "    integrator: {type: enum, values: " << choices(sim::dynamics::integrator_names())
    << ", default: heun, doc: \"stochastic integrator\"}\n";
  s << R"yaml(    params: {type: map, of: float, default: {},
             doc: "model parameters that differ from their defaults, e.g. {g: 2} (names as dynamics.<model>.* of network_dynamics)"}
    coupling_mm: {type: float, default: 20, min: 0, doc: "W_ij = exp(-d_ij / coupling_mm) between parcel centroids, columns normalised (> 0)"}
    dt: {type: float, default: 0.1, min: 0, doc: "integration step (model time units; > 0)"}
    burn_in: {type: int, default: 1000, min: 0, doc: "steps integrated and discarded before the first point"}
    steps_per_point: {type: int, default: 10, min: 1, doc: "integration steps per time point (a step lasts tr_s / steps_per_point seconds)"}
    velocity_m_s: {type: float, default: 0, min: 0, doc: "conduction velocity: parcel j reaches parcel i d_ij / velocity later, rounded to whole steps (0 = no delays)"}
  hemodynamics: {type: enum, values: [none, balloon], default: none, doc: "balloon: the activity drives the balloon model and the BOLD signal is kept"}
  balloon:
    kappa: {type: float, default: 0.65, min: 0, doc: "decay of the vasodilatory signal, 1/s"}
    gamma: {type: float, default: 0.41, min: 0, doc: "autoregulation, 1/s"}
    tau: {type: float, default: 0.98, min: 0, doc: "transit time, s"}
    alpha: {type: float, default: 0.32, min: 0, doc: "Grubb's exponent"}
    e0: {type: float, default: 0.34, min: 0, max: 1, doc: "resting oxygen extraction fraction"}
    v0: {type: float, default: 0.02, min: 0, doc: "resting venous blood volume fraction"}
    gain: {type: float, default: 0.1, min: 0, doc: "neural efficacy: the input is gain x (standardised activity)"}
windows:
  length: {type: int, default: 50, min: 1, doc: "w: time points per sample; a token is one parcel's w values"}
  stride: {type: int, default: 0, min: 0, doc: "points between the starts of a subject's consecutive windows; 0 = length"}
import:
  subjects: {type: map, of: any, default: {},
             doc: "source: import: split -> list of files, one per subject: time x parcels, HDF5 (.h5) or text (.csv, .tsv)"}
  dataset: {type: string, default: "", doc: "HDF5 files: the dataset holding the series; \"\" = the file's only 2-D dataset"}
  atlas: {type: string, default: "",
          doc: "the parcels of the columns: a NIfTI label volume (ascending labels) or a table of centroids in mm (one row per parcel: columns x, y, z named in a header, or the only three)"}
)yaml";
  return s.str();
}

[[noreturn]] void fail(const config::Node& at, const std::string& message) {
  throw UserError(at.mark().str() + ": " + message);
}

double positive(const config::Node& r, const std::string& key) {
  const double v = r.at(key).as_double();
  if (!(v > 0)) fail(r.at(key), "'" + key + "' must be > 0");
  return v;
}

void read_volume(const config::Node& r, ParcelsOptions& o) {
  o.mask = r.at("volume.mask").text();
  const auto& axes = r.at("volume.semi_axes_mm");
  if (axes.items().size() != 3) fail(axes, "'volume.semi_axes_mm' needs three values (x, y, z)");
  Eigen::Vector3d a;
  for (int i = 0; i < 3; ++i) {
    a[i] = axes.items()[static_cast<std::size_t>(i)].as_double();
    if (!(a[i] > 0)) fail(axes.items()[static_cast<std::size_t>(i)], "'volume.semi_axes_mm' values must be > 0");
  }
  o.ellipsoid.semi_axes_mm(a).voxel_mm(positive(r, "volume.voxel_mm")).hemispheres(r.at("volume.hemispheres").as_bool());
  o.nifti = r.at("volume.nifti").text();
  o.nifti_mark = r.at("volume.nifti").mark();
  if (o.mask == "nifti" && o.nifti.empty()) fail(r.at("volume.nifti"), "mask: nifti needs 'volume.nifti', a label volume");
  o.atlas_labels = r.at("volume.atlas_labels").text();
  o.resample_mm = r.at("volume.resample_mm").as_double();

  o.parcellation.parcels(r.at("parcels.count").as_int())
      .lloyd_steps(static_cast<int>(r.at("parcels.lloyd_steps").as_int()))
      .size_spread(r.at("parcels.size_spread").as_double())
      .mirror(r.at("parcels.mirror").as_bool())
      .threads(o.threads);
  o.parcellation_mark = r.at("parcels").mark();
  o.jitter_mm = r.at("parcels.jitter_mm").as_double();
}

void read_activity(const config::Node& r, ParcelsOptions& o) {
  auto& a = o.activity;
  o.activity_mark = r.at("activity").mark();
  a.tr_s = positive(r, "activity.tr_s");
  a.burn_in = r.at("activity.burn_in").as_int();
  a.observation_noise = r.at("activity.observation_noise").as_double();
  a.field_weight = r.at("activity.field.weight").as_double();
  a.field.fwhm_mm(r.at("activity.field.fwhm_mm").as_double()).rho(r.at("activity.field.rho").as_double()).threads(o.threads);
  a.network_weight = r.at("activity.network.weight").as_double();
  if (a.field_weight == 0 && a.network_weight == 0)
    fail(r.at("activity.field.weight"), "activity.field.weight and activity.network.weight are both 0: no activity");
  auto& n = a.network;
  n.model = r.at("activity.network.model").text();
  n.integrator = r.at("activity.network.integrator").text();
  for (const auto& [name, value] : r.at("activity.network.params").entries()) n.params[name] = value.as_double();
  if (a.network_weight != 0) {
    try {
      sim::dynamics::make_model(n.model, n.params);  // checks the names and ranges now, at the key's position
    } catch (const std::invalid_argument& e) {
      fail(r.at("activity.network.params"), e.what());
    }
  }
  n.coupling_mm = positive(r, "activity.network.coupling_mm");
  n.simulation.dt(positive(r, "activity.network.dt"))
      .burn_in(r.at("activity.network.burn_in").as_int())
      .subsample(r.at("activity.network.steps_per_point").as_int());
  n.velocity_m_s = r.at("activity.network.velocity_m_s").as_double();
  o.hemodynamics = r.at("activity.hemodynamics").text();
  a.balloon = o.hemodynamics == "balloon";
  auto& b = a.hemodynamics;
  b.kappa(positive(r, "activity.balloon.kappa")).gamma(positive(r, "activity.balloon.gamma"))
      .tau(positive(r, "activity.balloon.tau")).alpha(positive(r, "activity.balloon.alpha"))
      .e0(positive(r, "activity.balloon.e0")).v0(positive(r, "activity.balloon.v0"))
      .gain(r.at("activity.balloon.gain").as_double());
  if (!(b.e0() < 1)) fail(r.at("activity.balloon.e0"), "'activity.balloon.e0' must be < 1");
}

void read_subjects(const config::Node& r, ParcelsOptions& o) {
  const auto& splits = r.at("splits");
  const auto& subjects = r.at("subjects");
  config::check_split_keys(subjects, "subjects", splits, {"train", "test"});
  double recorded_bytes = 0;
  for (const auto& [name, count] : splits.entries()) {
    SubjectPlan p;
    p.name = name;
    p.windows.samples = count.as_int();
    p.windows.length = o.window;
    p.windows.stride = o.stride;
    const auto* n = subjects.find(name);
    if (!n) {
      if (p.windows.samples > 0)
        throw UserError(count.key_mark().str() + ": split '" + name +
                        "' has no entry in `subjects` (how many subjects its windows are cut from)");
    } else {
      p.windows.recordings = n->as_int();
      p.first_subject = o.subjects;
      o.subjects += p.windows.used();
    }
    recorded_bytes += 4.0 * static_cast<double>(p.windows.used()) *
                      static_cast<double>(p.windows.points() + o.activity.burn_in);
    o.splits.push_back(p);
  }
  // Parcels are not known yet (an atlas may set them); the bound uses the configured count.
  if (recorded_bytes * static_cast<double>(o.parcellation.parcels()) > kMaxRecordedBytes)
    fail(splits, "the subjects would record over 16 GiB of activity: ask for fewer samples, subjects or parcels, or "
                 "let windows overlap (a smaller windows.stride)");
}

void read_import(const config::Node& r, ParcelsOptions& o) {
  for (const auto& [name, count] : r.at("splits").entries())
    fail(count, "source: import makes its splits from import.subjects; set `splits: {}` (found '" + name + "')");
  const auto& subjects = r.at("import.subjects");
  if (subjects.entries().empty()) fail(subjects, "source: import needs import.subjects: split -> list of files");
  for (const auto& [name, files] : subjects.entries()) {
    if (!files.is_sequence() || files.items().empty())
      fail(files, "import.subjects." + name + " must be a list of files, one per subject");
    ImportedSplit s;
    s.name = name;
    for (const auto& f : files.items()) {
      if (!f.is_scalar() || f.text().empty()) fail(f, "import.subjects." + name + ": expected a file name");
      s.files.push_back(f.text());
      s.marks.push_back(f.mark());
    }
    o.imports.push_back(std::move(s));
  }
  o.import_dataset = r.at("import.dataset").text();
  o.atlas = r.at("import.atlas").text();
  o.atlas_mark = r.at("import.atlas").mark();
  if (o.atlas.empty()) fail(r.at("import.atlas"), "source: import needs import.atlas (NIfTI labels or centroid CSV)");
}

}  // namespace

const char* schema_text() {
  static const std::string text = build_schema();
  return text.c_str();
}

ParcelsOptions read_options(const config::Node& r) {
  ParcelsOptions o;
  o.seed = static_cast<std::uint64_t>(r.at("seed").as_int());
  o.threads = static_cast<int>(r.at("threads").as_int());
  o.window = r.at("windows.length").as_int();
  o.stride = r.at("windows.stride").as_int();
  if (o.stride == 0) o.stride = o.window;
  o.imported = r.at("source").text() == "import";
  if (o.imported) {
    read_import(r, o);
    return o;
  }
  read_volume(r, o);
  read_activity(r, o);
  read_subjects(r, o);
  return o;
}

}  // namespace loci::volumetric_parcels
