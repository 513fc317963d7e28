// volumetric_parcels: 3-D brain-like volumes cut into parcels, with activity per parcel (Experiment 3). The mask,
// the parcellation (one, or one per subject when jittered) and the dataset arrays are made when configured; a
// split's subjects are simulated together the first time one of its samples is asked for, then every sample is a
// copy out of their recordings. `source: import` reads a user's series and atlas instead.
#include <omp.h>

#include <algorithm>
#include <atomic>
#include <exception>
#include <map>
#include <memory>
#include <mutex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "core/error.hpp"
#include "cpu/memory_available.hpp"
#include "parcels_card.hpp"
#include "parcels_import.hpp"
#include "parcels_options.hpp"
#include "plugins/api/param_attributes.hpp"
#include "plugins/api/plugin.hpp"
#include "sim/dynamics/model.hpp"
#include "sim/volume/activity.hpp"
#include "sim/volume/label_names.hpp"
#include "sim/volume/mask.hpp"
#include "sim/volume/nifti.hpp"
#include "sim/volume/parcel_facts.hpp"
#include "sim/volume/parcellate.hpp"

namespace loci::volumetric_parcels {

namespace {

using datasets::DType;
namespace vol = sim::volume;

enum Slot : std::size_t { kActivity, kSubject, kStart };

// The label volume as [x, y, z] in C order (x slowest), the way nibabel hands it to numpy users.
std::vector<std::int32_t> xyz_order(const vol::LabelVolume& v) {
  const auto& d = v.grid.dims;
  std::vector<std::int32_t> out(v.labels.size());
  for (std::int64_t k = 0; k < d[2]; ++k)
    for (std::int64_t j = 0; j < d[1]; ++j)
      for (std::int64_t i = 0; i < d[0]; ++i)
        out[static_cast<std::size_t>((i * d[1] + j) * d[2] + k)] =
            v.labels[static_cast<std::size_t>(v.grid.index(i, j, k))];
  return out;
}

template <class T, class U>
std::vector<T> cast(const std::vector<U>& in) {
  return std::vector<T>(in.begin(), in.end());
}

// The driver calls fill() from inside its OpenMP team, where a nested parallel region gets one thread; work run on
// a thread of its own gets the whole team for its OpenMP regions (the smooth field's, the parcellation's).
template <class F>
void outside_team(F&& work) {
  std::exception_ptr error;
  std::thread worker([&] {
    try {
      work();
    } catch (...) {
      error = std::current_exception();
    }
  });
  worker.join();
  if (error) std::rethrow_exception(error);
}

class VolumetricParcels final : public plugins::Generator {
 public:
  void configure(const config::Node& resolved) override {
    *this = VolumetricParcels();  // nothing of an earlier configuration survives
    opt_ = read_options(resolved);
    if (opt_.imported)
      configure_import();
    else
      configure_simulation();
    build_layout();
  }

  std::vector<std::pair<std::string, std::int64_t>> fixed_splits() const override {
    std::vector<std::pair<std::string, std::int64_t>> out;
    for (const auto& s : imported_) out.emplace_back(s.name, s.samples);
    return out;
  }

  const datasets::DatasetLayout& layout() const override { return layout_; }

  void fill(const datasets::SampleKey& key, const datasets::SampleSlots& out) const override {
    float* activity = out.get<float>(kActivity);
    const auto tokens = static_cast<std::size_t>(centroids_.rows());
    if (opt_.imported) {
      const auto& split =
          *std::find_if(imported_.begin(), imported_.end(), [&](const auto& s) { return s.name == key.split; });
      const auto k =
          static_cast<std::size_t>(std::upper_bound(split.first_sample.begin(), split.first_sample.end(), key.index) -
                                   split.first_sample.begin() - 1);
      const auto& subject = split.subjects[k];
      const std::int64_t start = (key.index - split.first_sample[k]) * opt_.stride;
      datasets::copy_window(subject.series.data(), tokens, subject.points, start, opt_.window, activity);
      *out.get<std::int64_t>(kSubject) = first_imported_subject_.at(key.split) + static_cast<std::int64_t>(k);
      *out.get<std::int64_t>(kStart) = start;
      return;
    }
    const auto it = splits_.find(key.split);
    if (it == splits_.end()) throw std::logic_error("volumetric_parcels: unknown split " + key.split);
    SplitState& split = *it->second;
    std::call_once(split.simulated, [&] { simulate(split); });
    const auto cut = split.plan.windows.cut(key.index);
    datasets::copy_window(split.recordings[static_cast<std::size_t>(cut.recording)].data(), tokens,
                          split.plan.windows.points(), cut.start, opt_.window, activity);
    *out.get<std::int64_t>(kSubject) = split.plan.first_subject + cut.recording;
    *out.get<std::int64_t>(kStart) = cut.start;
  }

  std::string card_prose() const override { return volumetric_parcels::card_prose(opt_, facts_); }

  std::string render_sample(const datasets::SampleSlots& sample) const override {
    return render_window(sample, centroids_, opt_.window);
  }

  std::vector<std::string> input_files() const override {
    std::vector<std::string> files;
    if (opt_.imported) {
      if (!opt_.atlas.empty()) files.push_back(opt_.atlas);
      for (const auto& s : opt_.imports) files.insert(files.end(), s.files.begin(), s.files.end());
    } else if (opt_.mask == "nifti") {
      files.push_back(opt_.nifti);
    }
    if (!opt_.label_file.empty()) files.push_back(opt_.label_file);
    if (!opt_.import_regions.empty() && opt_.import_regions.rfind("builtin:", 0) != 0)
      files.push_back(opt_.import_regions);
    return files;
  }

  // A simulation keeps import.* (empty) in its recorded config, so that datasets made before this existed keep
  // their bytes; an import drops the simulation's keys, which would only mislead a reader of its card. The import
  // keys added later (points, regions, voxel_block, standardize) are left out wherever they hold their defaults, for
  // the same reason.
  std::vector<std::string> unused_keys(const config::Node& resolved) const override {
    std::vector<std::string> unused;
    const config::Node& points = resolved.at("import.points");
    if (points.is_null() || (points.is_map() && points.entries().empty()) ||
        (points.is_scalar() && points.text().empty()))
      unused.push_back("import.points");
    if (resolved.at("import.regions").text().empty()) unused.push_back("import.regions");
    if (resolved.at("import.voxel_block").as_int() == 1) unused.push_back("import.voxel_block");
    if (!resolved.at("import.standardize").as_bool()) unused.push_back("import.standardize");
    if (resolved.at("source").text() != "import") return unused;
    for (const char* k : {"subjects", "volume", "parcels", "activity"}) unused.push_back(k);
    return unused;
  }

  std::string default_license() const override { return opt_.imported ? "unknown" : "cc-by-4.0"; }

 private:
  struct SplitState {
    explicit SplitState(SubjectPlan p) : plan(std::move(p)) {}
    SubjectPlan plan;
    std::once_flag simulated;
    std::vector<std::vector<float>> recordings;  // per subject: parcels x points
  };

  // The mask to parcellate, or (atlas_parcels_) the parcels themselves.
  vol::LabelVolume read_mask() {
    if (opt_.mask == "ellipsoid") return vol::ellipsoid_mask(opt_.ellipsoid);
    vol::LabelVolume v;
    try {
      v = vol::read_nifti_labels(opt_.nifti);
    } catch (const std::exception& e) {
      throw UserError(opt_.nifti_mark.str() + ": " + e.what());
    }
    if (v.count_nonzero() == 0)
      throw UserError(opt_.nifti_mark.str() + ": " + opt_.nifti + ": holds no labelled voxel");
    if (opt_.resample_mm > 0) {
      try {
        v = vol::resample(v, opt_.resample_mm);
      } catch (const std::invalid_argument& e) {
        throw UserError(opt_.resample_mark.str() + ": 'volume.resample_mm': " + e.what());
      }
    }
    if (opt_.atlas_labels == "parcels") {
      atlas_parcels_ = true;
      original_labels_ = vol::relabel_consecutive(v);
      return v;
    }
    for (std::int64_t i = 0; i < v.grid.voxels(); ++i) {
      auto& l = v.labels[static_cast<std::size_t>(i)];
      if (l != 0) l = opt_.atlas_labels == "hemispheres" && v.grid.mm(i).x() >= 0 ? 2 : 1;
    }
    return v;
  }

  // Each parcel is a token: the dataset holds their [token, token] distances and the field's [token, token]
  // covariance, so the count is bounded by memory before any of it is built.
  void check_token_memory(std::int64_t tokens) const {
    const double needed = 3 * 8 * static_cast<double>(tokens) * static_cast<double>(tokens);
    const double available = static_cast<double>(cpu::memory_available());
    if (needed > available)
      throw UserError(opt_.parcellation_mark.str() + ": " + std::to_string(tokens) + " parcels make " +
                      std::to_string(tokens) + " tokens, whose token x token distances and covariance need about " +
                      cpu::gib_text(needed) + ", more than the " + cpu::gib_text(available) +
                      " this process may use; use fewer parcels (an atlas with fewer labels, or volume.atlas_labels: "
                      "mask)");
  }

  void configure_simulation() {
    vol::LabelVolume mask = read_mask();
    try {
      if (atlas_parcels_) {
        if (opt_.jitter_mm > 0)
          throw std::invalid_argument(
              "parcels.jitter_mm needs a parcellation made here (volume.atlas_labels: mask or "
              "hemispheres), not an atlas's own parcels");
        parcels_.labels = std::move(mask);
      } else {
        auto& p = opt_.parcellation;
        outside_team([&] { parcels_ = vol::parcellate(mask, p, opt_.seed); });
      }
      const auto count =
          atlas_parcels_ ? static_cast<std::int64_t>(original_labels_.size()) : opt_.parcellation.parcels();
      check_token_memory(count);
      if (atlas_parcels_) name_tokens(opt_.nifti);
      parcel_facts_ = vol::describe_parcels(parcels_.labels, count);
      centroids_ = parcel_facts_.centroids;
      if (opt_.jitter_mm > 0) {
        outside_team([&] {
          for (std::int64_t s = 0; s < opt_.subjects; ++s) {
            vol::Parcellation own =
                vol::jitter(parcels_, opt_.jitter_mm, opt_.seed, static_cast<std::uint64_t>(s), opt_.threads);
            subject_centroids_.push_back(vol::describe_parcels(own.labels, count).centroids);
            subject_labels_.push_back(std::move(own.labels));
          }
        });
      }
    } catch (const UserError&) {
      throw;
    } catch (const std::bad_alloc&) {
      throw UserError(opt_.parcellation_mark.str() + ": ran out of memory building the parcels (" +
                      cpu::gib_text(static_cast<double>(cpu::memory_available())) +
                      " available); use fewer parcels or a "
                      "coarser volume (volume.resample_mm)");
    } catch (const std::exception& e) {
      throw UserError(opt_.parcellation_mark.str() + ": " + e.what());
    }
    facts_.parcels = centroids_.rows();
    facts_.mask_voxels = parcels_.labels.count_nonzero();
    facts_.dropped = parcels_.dropped;
    facts_.moved = parcels_.moved;
    facts_.atlas_parcels = atlas_parcels_;
    describe_grid(parcels_.labels.grid);
    splits_.clear();
    for (const auto& plan : opt_.splits) splits_[plan.name] = std::make_unique<SplitState>(plan);
  }

  void configure_import() {
    Atlas atlas = read_atlas(opt_);
    imported_ = read_subjects(opt_, atlas);
    centroids_ = atlas.centroids;
    facts_.parcels = centroids_.rows();
    facts_.has_volume = atlas.has_volume;
    facts_.dropped = atlas.constant_voxels;
    if (atlas.has_volume) {
      parcels_.labels = std::move(atlas.labels);
      parcel_facts_ = std::move(atlas.facts);
      original_labels_ = std::move(atlas.original);
      if (!opt_.voxel_series) name_tokens(opt_.atlas);
      facts_.mask_voxels = parcels_.labels.count_nonzero();
      describe_grid(parcels_.labels.grid);
    }
    facts_.left_out = left_out_columns(opt_, opt_.imports.front().files.front());
    std::int64_t next = 0;
    for (const auto& s : imported_) {
      first_imported_subject_[s.name] = next;
      next += static_cast<std::int64_t>(s.subjects.size());
    }
  }

  // Each token's region name from the label file, by the atlas's own label; every label must have one.
  void name_tokens(const std::string& atlas) {
    if (opt_.label_file.empty()) return;
    std::map<std::int32_t, std::string> names;
    try {
      names = vol::read_label_names(opt_.label_file);
    } catch (const std::exception& e) {
      throw UserError(opt_.label_file_mark.str() + ": " + e.what());
    }
    for (const std::int32_t label : original_labels_) {
      const auto it = names.find(label);
      if (it == names.end())
        throw UserError(opt_.label_file_mark.str() + ": " + opt_.label_file + " has no name for label " +
                        std::to_string(label) + " of " + atlas + " (is it that atlas's label file?)");
      facts_.token_labels.push_back(it->second);
    }
  }

  void describe_grid(const vol::Grid& g) {
    const Eigen::Vector3d v = g.spacing_mm();
    std::ostringstream s;
    s << g.dims[0] << " x " << g.dims[1] << " x " << g.dims[2] << " voxels of " << v.x() << " x " << v.y() << " x "
      << v.z() << " mm";
    facts_.grid = s.str();
    if (!parcel_facts_.volumes_mm3.empty()) {
      const auto [lo, hi] = std::minmax_element(parcel_facts_.volumes_mm3.begin(), parcel_facts_.volumes_mm3.end());
      facts_.min_volume_mm3 = *lo, facts_.max_volume_mm3 = *hi;
      for (auto a : parcel_facts_.adjacency) facts_.edges += a;
      facts_.edges /= 2;
    }
  }

  // Subjects run side by side, each on its share of the threads (a split of one subject gets them all): few
  // synchronisations per step, which matters on a machine shared with other work. A subject's numbers do not
  // depend on which thread runs it or how many the field uses.
  void simulate(SplitState& split) const {
    const SubjectPlan& p = split.plan;
    const auto subjects = static_cast<std::size_t>(p.windows.used());
    split.recordings.resize(subjects);
    std::vector<std::string> errors(subjects);
    outside_team([&] {
      const int threads = opt_.threads > 0 ? opt_.threads : omp_get_max_threads();
      const std::size_t workers =
          std::max<std::size_t>(1, std::min<std::size_t>(subjects, static_cast<std::size_t>(threads)));
      vol::ActivityOptions activity = opt_.activity;
      activity.field.threads(std::max(1, threads / static_cast<int>(workers)));
      std::atomic<std::size_t> next{0};
      auto work = [&] {
        for (std::size_t s = next++; s < subjects; s = next++) {
          const auto subject = static_cast<std::size_t>(p.first_subject) + s;
          const bool own = !subject_labels_.empty();
          try {
            split.recordings[s] = vol::simulate_activity(own ? subject_labels_[subject] : parcels_.labels,
                                                         own ? subject_centroids_[subject] : centroids_, activity,
                                                         opt_.seed, subject, p.windows.points());
          } catch (const std::exception& e) {
            errors[s] = e.what();
          }
        }
      };
      std::vector<std::thread> pool;
      for (std::size_t w = 1; w < workers; ++w) pool.emplace_back(work);
      work();
      for (auto& t : pool) t.join();
    });
    for (const auto& e : errors)
      if (!e.empty()) throw UserError("volumetric_parcels: split '" + p.name + "': " + e);
  }

  void build_layout() {
    const auto n = static_cast<std::int64_t>(centroids_.rows());
    layout_ = {};
    layout_.sample_arrays = {
        {"activity",
         DType::f32,
         {"token", "time"},
         {n, opt_.window},
         "one token per parcel: its activity over the window's w points"},
        {"subject", DType::i64, {}, {}, "index of the subject the window comes from (subjects numbered across splits)"},
        {"start", DType::i64, {}, {}, "the window's first point within the subject's series"},
    };
    add_position_arrays(n);
    add_atlas_arrays(n);
    add_subject_positions(n);
    add_attributes(n);
  }

  // Where each token is: centroids, their distances and hemispheres.
  void add_position_arrays(std::int64_t n) {
    std::vector<float> positions;
    for (std::int64_t i = 0; i < n; ++i)
      for (int a = 0; a < 3; ++a) positions.push_back(static_cast<float>(centroids_(i, a)));
    auto& d = layout_.dataset_arrays;
    d.push_back(datasets::Array::of(
        {"positions", DType::f32, {"token", "axis"}, {n, 3}, "centroid of each parcel, mm (x left-right, y, z)"},
        positions));
    d.push_back(datasets::Array::of(
        {"distance", DType::f32, {"token", "peer"}, {n, n}, "euclidean distance between centroids, mm"},
        vol::distance_matrix(centroids_)));
    d.push_back(
        datasets::Array::of({"hemisphere", DType::u8, {"token"}, {n}, "0 = left (centroid x < 0 mm), 1 = right"},
                            vol::hemispheres(centroids_)));
  }

  // The parcels as voxels and labels, where the template has them.
  void add_atlas_arrays(std::int64_t n) {
    auto& d = layout_.dataset_arrays;
    if (!parcels_.labels.labels.empty()) {
      const auto& g = parcels_.labels.grid;
      d.push_back(datasets::Array::of(
          {"adjacency", DType::u8, {"token", "peer"}, {n, n}, "1 where two parcels share a voxel face"},
          parcel_facts_.adjacency));
      d.push_back(datasets::Array::of({"volumes", DType::f32, {"token"}, {n}, "volume of each parcel, mm^3"},
                                      cast<float>(parcel_facts_.volumes_mm3)));
      d.push_back(datasets::Array::of({"labels",
                                       DType::i32,
                                       {"x", "y", "z"},
                                       {g.dims[0], g.dims[1], g.dims[2]},
                                       "parcel (token + 1) of each voxel, 0 outside; indexed [x, y, z]"},
                                      xyz_order(parcels_.labels)));
      std::vector<double> affine(16);
      for (int r = 0; r < 4; ++r)
        for (int c = 0; c < 4; ++c) affine[static_cast<std::size_t>(r * 4 + c)] = g.affine(r, c);
      d.push_back(datasets::Array::of({"affine",
                                       DType::f64,
                                       {"affine_row", "affine_column"},
                                       {4, 4},
                                       "voxel (i, j, k, 1) of /labels to (x, y, z, 1) in mm"},
                                      affine));
    }
    if (!original_labels_.empty())
      d.push_back(datasets::Array::of(
          {"atlas_label", DType::i32, {"token"}, {n}, "the atlas's own label of each parcel"}, original_labels_));
    if (!facts_.token_labels.empty())
      layout_.text_arrays.push_back({"token_label", "token", facts_.token_labels,
                                     "region name of each parcel, from the atlas's label file " + opt_.label_file});
  }

  void add_subject_positions(std::int64_t n) {
    if (subject_centroids_.empty()) return;
    std::vector<float> own;
    for (const auto& c : subject_centroids_)
      for (std::int64_t i = 0; i < n; ++i)
        for (int a = 0; a < 3; ++a) own.push_back(static_cast<float>(c(i, a)));
    layout_.dataset_arrays.push_back(
        datasets::Array::of({"subject_positions",
                             DType::f32,
                             {"subjects", "token", "axis"},
                             {static_cast<std::int64_t>(subject_centroids_.size()), n, 3},
                             "each subject's own parcel centroids, mm (jittered parcellations)"},
                            own));
  }

  void add_attributes(std::int64_t n) {
    auto& a = layout_.attributes;
    a["source"] = std::string(opt_.imported ? "import" : "simulate");
    a["parcels"] = n;
    a["window"] = opt_.window;
    a["stride"] = opt_.stride;
    if (opt_.imported) {
      a["atlas"] = opt_.atlas;
      for (const auto& s : imported_) {
        a["subjects." + s.name] = static_cast<std::int64_t>(s.subjects.size());
        a["first_subject." + s.name] = first_imported_subject_.at(s.name);
      }
      return;
    }
    add_simulation_attributes();
  }

  // How a simulated dataset was made: its mask, parcellation and activity model.
  void add_simulation_attributes() {
    auto& a = layout_.attributes;
    a["mask"] = opt_.mask;
    if (opt_.mask == "nifti")
      a["nifti"] = opt_.nifti, a["atlas_labels"] = opt_.atlas_labels, a["resample_mm"] = opt_.resample_mm;
    else {
      a["voxel_mm"] = opt_.ellipsoid.voxel_mm();
      for (int i = 0; i < 3; ++i) a[std::string("semi_axis_mm.") + "xyz"[i]] = opt_.ellipsoid.semi_axes_mm()[i];
      a["hemispheres"] = static_cast<std::int64_t>(opt_.ellipsoid.hemispheres());
    }
    if (!atlas_parcels_) {
      a["lloyd_steps"] = static_cast<std::int64_t>(opt_.parcellation.lloyd_steps());
      a["size_spread"] = opt_.parcellation.size_spread();
      a["mirror"] = static_cast<std::int64_t>(opt_.parcellation.mirror());
      a["jitter_mm"] = opt_.jitter_mm;
      a["dropped_voxels"] = facts_.dropped;
      a["moved_voxels"] = facts_.moved;
    }
    const auto& act = opt_.activity;
    a["tr_s"] = act.tr_s;
    a["burn_in"] = act.burn_in;
    a["observation_noise"] = act.observation_noise;
    a["field.weight"] = act.field_weight;
    a["field.fwhm_mm"] = act.field.fwhm_mm();
    a["field.rho"] = act.field.rho();
    a["network.weight"] = act.network_weight;
    if (act.network_weight != 0) {
      a["network.model"] = act.network.model;
      plugins::add_param_attributes(a, "network.", sim::dynamics::model_info(act.network.model).params,
                                    act.network.params);
      a["network.integrator"] = act.network.integrator;
      a["network.coupling_mm"] = act.network.coupling_mm;
      a["network.dt"] = act.network.simulation.dt();
      a["network.steps_per_point"] = act.network.simulation.subsample();
    }
    a["hemodynamics"] = opt_.hemodynamics;
    for (const auto& p : opt_.splits) {
      a["subjects." + p.name] = p.windows.used();
      a["first_subject." + p.name] = p.first_subject;
      a["points_per_subject." + p.name] = p.windows.points();
    }
  }

  ParcelsOptions opt_;
  bool atlas_parcels_ = false;
  vol::Parcellation parcels_;  // the template (labels only for an atlas's own parcels or an import)
  vol::ParcelFacts parcel_facts_;
  Eigen::MatrixXd centroids_;
  std::vector<std::int32_t> original_labels_;
  std::vector<vol::LabelVolume> subject_labels_;  // jittered: one per subject
  std::vector<Eigen::MatrixXd> subject_centroids_;
  std::vector<ImportedSplitData> imported_;
  std::map<std::string, std::int64_t> first_imported_subject_;
  CardFacts facts_;
  datasets::DatasetLayout layout_;
  std::map<std::string, std::unique_ptr<SplitState>> splits_;
};

}  // namespace

}  // namespace loci::volumetric_parcels

LOCI_PLUGIN(LOCI_PLUGIN_GENERATOR, "volumetric_parcels", "0.1.0",
            "3-D brain volumes cut into parcels with spatially structured activity (Experiment 3): parcel tokens, "
            "true positions = centroids in mm",
            loci::volumetric_parcels::schema_text(), loci::volumetric_parcels::VolumetricParcels)
