// source: import: a user's series and atlas, read and checked when configured (parcels_import.hpp); every sample is
// a window copied out of its subject's series.
#include <algorithm>
#include <map>

#include "datasets/windows.hpp"
#include "parcel_source.hpp"
#include "parcels_import.hpp"

namespace loci::volumetric_parcels {

namespace {

class ImportedParcels final : public ParcelSource {
 public:
  explicit ImportedParcels(const ParcelsOptions& o) : opt_(o) {
    Atlas atlas = read_atlas(opt_);
    splits_ = read_subjects(opt_, atlas);
    t_.centroids = atlas.centroids;
    auto& facts = t_.facts;
    facts.parcels = t_.centroids.rows();
    facts.has_volume = atlas.has_volume;
    facts.dropped = atlas.constant_voxels;
    if (atlas.has_volume) {
      t_.parcels.labels = std::move(atlas.labels);
      t_.parcel_facts = std::move(atlas.facts);
      t_.original_labels = std::move(atlas.original);
      if (!opt_.voxel_series) name_tokens(t_, opt_, opt_.atlas);
      facts.mask_voxels = t_.parcels.labels.count_nonzero();
      describe_grid(t_, t_.parcels.labels.grid);
    }
    facts.left_out = left_out_columns(opt_, opt_.imports.front().files.front());
    std::int64_t next = 0;
    for (const auto& s : splits_) {
      first_subject_[s.name] = next;
      next += static_cast<std::int64_t>(s.subjects.size());
    }
  }

  std::vector<std::pair<std::string, std::int64_t>> fixed_splits() const override {
    std::vector<std::pair<std::string, std::int64_t>> out;
    for (const auto& s : splits_) out.emplace_back(s.name, s.samples);
    return out;
  }

  void fill(const datasets::SampleKey& key, const WindowSlots& out) const override {
    const auto& split =
        *std::find_if(splits_.begin(), splits_.end(), [&](const auto& s) { return s.name == key.split; });
    const auto k =
        static_cast<std::size_t>(std::upper_bound(split.first_sample.begin(), split.first_sample.end(), key.index) -
                                 split.first_sample.begin() - 1);
    const auto& subject = split.subjects[k];
    const std::int64_t start = (key.index - split.first_sample[k]) * opt_.stride;
    datasets::copy_window(subject.series.data(), static_cast<std::size_t>(t_.centroids.rows()), subject.points, start,
                          opt_.window, out.activity);
    *out.subject = first_subject_.at(key.split) + static_cast<std::int64_t>(k);
    *out.start = start;
  }

  void add_attributes(datasets::Attributes& a) const override {
    a["atlas"] = opt_.atlas;
    for (const auto& s : splits_) {
      a["subjects." + s.name] = static_cast<std::int64_t>(s.subjects.size());
      a["first_subject." + s.name] = first_subject_.at(s.name);
    }
  }

 private:
  const ParcelsOptions opt_;
  std::vector<ImportedSplitData> splits_;
  std::map<std::string, std::int64_t> first_subject_;  // subjects numbered across splits
};

}  // namespace

std::unique_ptr<ParcelSource> import_source(const ParcelsOptions& o) { return std::make_unique<ImportedParcels>(o); }

}  // namespace loci::volumetric_parcels
