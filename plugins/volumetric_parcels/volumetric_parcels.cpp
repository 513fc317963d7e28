// volumetric_parcels: 3-D brain-like volumes cut into parcels, with activity per parcel (Experiment 3). Its two
// sources, simulate (simulate_source.cpp) and import (import_source.cpp: a user's series and atlas), give the parcels
// and each sample's window; this file is the plugin around them: options, layout, card and the recorded config.
#include <memory>
#include <string>
#include <vector>

#include "parcel_source.hpp"
#include "parcels_card.hpp"
#include "parcels_layout.hpp"
#include "parcels_options.hpp"
#include "plugins/api/plugin.hpp"

namespace loci::volumetric_parcels {

namespace {

enum Slot : std::size_t { kActivity, kSubject, kStart };

class VolumetricParcels final : public plugins::Generator {
 public:
  void configure(const config::Node& resolved) override {
    source_.reset();  // nothing of an earlier configuration survives
    opt_ = read_options(resolved);
    source_ = opt_.imported() ? import_source(opt_) : simulate_source(opt_);
    layout_ = parcels_layout(*source_, opt_);
  }

  std::vector<std::pair<std::string, std::int64_t>> fixed_splits() const override { return source_->fixed_splits(); }

  const datasets::DatasetLayout& layout() const override { return layout_; }

  void fill(const datasets::SampleKey& key, const datasets::SampleSlots& out) const override {
    source_->fill(key, {out.get<float>(kActivity), out.get<std::int64_t>(kSubject), out.get<std::int64_t>(kStart)});
  }

  std::string card_prose() const override { return volumetric_parcels::card_prose(opt_, source_->parcels().facts); }

  std::string render_sample(const datasets::SampleSlots& sample) const override {
    return render_window(sample, source_->parcels().centroids, opt_.window);
  }

  std::vector<std::string> input_files() const override {
    std::vector<std::string> files;
    if (opt_.imported()) {
      if (!opt_.atlas.empty()) files.push_back(opt_.atlas);
      for (const auto& s : opt_.imports) files.insert(files.end(), s.files.begin(), s.files.end());
    } else if (opt_.mask == BrainMask::nifti) {
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

  std::string default_license() const override { return opt_.imported() ? "unknown" : "cc-by-4.0"; }

 private:
  ParcelsOptions opt_;
  std::unique_ptr<ParcelSource> source_;
  datasets::DatasetLayout layout_;
};

}  // namespace

}  // namespace loci::volumetric_parcels

LOCI_PLUGIN(LOCI_PLUGIN_GENERATOR, "volumetric_parcels", "0.1.0",
            "3-D brain volumes cut into parcels with spatially structured activity (Experiment 3): parcel tokens, "
            "true positions = centroids in mm",
            loci::volumetric_parcels::schema_text(), loci::volumetric_parcels::VolumetricParcels)
