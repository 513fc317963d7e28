// source: simulate: the mask, the parcellation (one, or one per subject when jittered) are made when configured; a
// split's subjects are simulated together the first time one of its samples is asked for, then every sample is a
// copy out of their recordings.
#include <omp.h>

#include <atomic>
#include <exception>
#include <map>
#include <mutex>
#include <thread>

#include "core/config/fail_at.hpp"
#include "core/error.hpp"
#include "cpu/memory_available.hpp"
#include "datasets/windows.hpp"
#include "parcel_source.hpp"
#include "plugins/api/param_attributes.hpp"
#include "sim/dynamics/model.hpp"
#include "sim/volume/activity.hpp"
#include "sim/volume/mask.hpp"
#include "sim/volume/nifti.hpp"

namespace loci::volumetric_parcels {

namespace {

namespace vol = sim::volume;

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

class SimulatedParcels final : public ParcelSource {
 public:
  explicit SimulatedParcels(const ParcelsOptions& o) : opt_(o) {
    vol::LabelVolume mask = read_mask();
    try {
      make_parcels(std::move(mask));
    } catch (const UserError&) {
      throw;
    } catch (const std::bad_alloc&) {
      config::fail_at(opt_.parcellation_mark,
                      "ran out of memory building the parcels (" +
                          cpu::gib_text(static_cast<double>(cpu::memory_available())) +
                          " available); use fewer parcels or a coarser volume (volume.resample_mm)");
    } catch (const std::exception& e) {
      config::fail_at(opt_.parcellation_mark, e.what());
    }
    auto& facts = t_.facts;
    facts.parcels = t_.centroids.rows();
    facts.mask_voxels = t_.parcels.labels.count_nonzero();
    facts.dropped = t_.parcels.dropped;
    facts.moved = t_.parcels.moved;
    facts.atlas_parcels = atlas_parcels_;
    describe_grid(t_, t_.parcels.labels.grid);
    for (const auto& plan : opt_.splits) splits_[plan.name] = std::make_unique<SplitState>(plan);
  }

  void fill(const datasets::SampleKey& key, const WindowSlots& out) const override {
    const auto it = splits_.find(key.split);
    if (it == splits_.end()) throw std::logic_error("volumetric_parcels: unknown split " + key.split);
    SplitState& split = *it->second;
    std::call_once(split.simulated, [&] { simulate(split); });
    const auto cut = split.plan.windows.cut(key.index);
    datasets::copy_window(split.recordings[static_cast<std::size_t>(cut.recording)].data(),
                          static_cast<std::size_t>(t_.centroids.rows()), split.plan.windows.points(), cut.start,
                          opt_.window, out.activity);
    *out.subject = split.plan.first_subject + cut.recording;
    *out.start = cut.start;
  }

  // How a simulated dataset was made: its mask, parcellation and activity model.
  void add_attributes(datasets::Attributes& a) const override {
    a["mask"] = choice_name(opt_.mask);
    if (opt_.mask == BrainMask::nifti)
      a["nifti"] = opt_.nifti, a["atlas_labels"] = choice_name(opt_.atlas_labels), a["resample_mm"] = opt_.resample_mm;
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
      a["dropped_voxels"] = t_.facts.dropped;
      a["moved_voxels"] = t_.facts.moved;
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
    a["hemodynamics"] = choice_name(opt_.hemodynamics);
    for (const auto& p : opt_.splits) {
      a["subjects." + p.name] = p.windows.used();
      a["first_subject." + p.name] = p.first_subject;
      a["points_per_subject." + p.name] = p.windows.points();
    }
  }

 private:
  struct SplitState {
    explicit SplitState(SubjectPlan p) : plan(std::move(p)) {}
    SubjectPlan plan;
    std::once_flag simulated;
    std::vector<std::vector<float>> recordings;  // per subject: parcels x points
  };

  // The mask to parcellate, or (atlas_parcels_) the parcels themselves.
  vol::LabelVolume read_mask() {
    if (opt_.mask == BrainMask::ellipsoid) return vol::ellipsoid_mask(opt_.ellipsoid);
    vol::LabelVolume v;
    try {
      v = vol::read_nifti_labels(opt_.nifti);
    } catch (const std::exception& e) {
      config::fail_at(opt_.nifti_mark, e.what());
    }
    if (v.count_nonzero() == 0) config::fail_at(opt_.nifti_mark, opt_.nifti + ": holds no labelled voxel");
    if (opt_.resample_mm > 0) {
      try {
        v = vol::resample(v, opt_.resample_mm);
      } catch (const std::invalid_argument& e) {
        config::fail_at(opt_.resample_mark, std::string("'volume.resample_mm': ") + e.what());
      }
    }
    if (opt_.atlas_labels == AtlasLabels::parcels) {
      atlas_parcels_ = true;
      t_.original_labels = vol::relabel_consecutive(v);
      return v;
    }
    for (std::int64_t i = 0; i < v.grid.voxels(); ++i) {
      auto& l = v.labels[static_cast<std::size_t>(i)];
      if (l != 0) l = opt_.atlas_labels == AtlasLabels::hemispheres && v.grid.mm(i).x() >= 0 ? 2 : 1;
    }
    return v;
  }

  // The template's parcels (cut here, or an atlas's own), their facts, and each subject's own when jittered.
  void make_parcels(vol::LabelVolume mask) {
    if (atlas_parcels_) {
      if (opt_.jitter_mm > 0)
        throw std::invalid_argument(
            "parcels.jitter_mm needs a parcellation made here (volume.atlas_labels: mask or "
            "hemispheres), not an atlas's own parcels");
      t_.parcels.labels = std::move(mask);
    } else {
      outside_team([&] { t_.parcels = vol::parcellate(mask, opt_.parcellation, opt_.seed); });
    }
    const auto count =
        atlas_parcels_ ? static_cast<std::int64_t>(t_.original_labels.size()) : opt_.parcellation.parcels();
    check_token_memory(count);
    if (atlas_parcels_) name_tokens(t_, opt_, opt_.nifti);
    t_.parcel_facts = vol::describe_parcels(t_.parcels.labels, count);
    t_.centroids = t_.parcel_facts.centroids;
    if (opt_.jitter_mm > 0) {
      outside_team([&] {
        for (std::int64_t s = 0; s < opt_.subjects; ++s) {
          vol::Parcellation own =
              vol::jitter(t_.parcels, opt_.jitter_mm, opt_.seed, static_cast<std::uint64_t>(s), opt_.threads);
          t_.subject_centroids.push_back(vol::describe_parcels(own.labels, count).centroids);
          subject_labels_.push_back(std::move(own.labels));
        }
      });
    }
  }

  // Each parcel is a token: the dataset holds their [token, token] distances and the field's [token, token]
  // covariance, so the count is bounded by memory before any of it is built.
  void check_token_memory(std::int64_t tokens) const {
    const double needed = 3 * 8 * static_cast<double>(tokens) * static_cast<double>(tokens);
    const double available = static_cast<double>(cpu::memory_available());
    if (needed > available)
      config::fail_at(opt_.parcellation_mark,
                      std::to_string(tokens) + " parcels make " + std::to_string(tokens) +
                          " tokens, whose token x token distances and covariance need about " + cpu::gib_text(needed) +
                          ", more than the " + cpu::gib_text(available) +
                          " this process may use; use fewer parcels (an atlas with fewer labels, or "
                          "volume.atlas_labels: mask)");
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
            split.recordings[s] = vol::simulate_activity(own ? subject_labels_[subject] : t_.parcels.labels,
                                                         own ? t_.subject_centroids[subject] : t_.centroids, activity,
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

  const ParcelsOptions opt_;
  bool atlas_parcels_ = false;
  std::vector<vol::LabelVolume> subject_labels_;  // jittered: one per subject
  std::map<std::string, std::unique_ptr<SplitState>> splits_;
};

}  // namespace

std::unique_ptr<ParcelSource> simulate_source(const ParcelsOptions& o) { return std::make_unique<SimulatedParcels>(o); }

}  // namespace loci::volumetric_parcels
