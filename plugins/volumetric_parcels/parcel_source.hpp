// Where a volumetric_parcels dataset's parcels and activity come from: simulated here (source: simulate,
// simulate_source.cpp) or read from a user's files (source: import, import_source.cpp). Either gives the parcels
// as tokens, with what the layout and the card need of them, and fills each sample's window.
#pragma once

#include <Eigen/Dense>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "datasets/generate.hpp"
#include "datasets/spec.hpp"
#include "parcels_card.hpp"
#include "parcels_options.hpp"
#include "sim/volume/grid.hpp"
#include "sim/volume/parcel_facts.hpp"
#include "sim/volume/parcellate.hpp"

namespace loci::volumetric_parcels {

// The parcels as tokens, found when configuring.
struct ParcelTemplate {
  sim::volume::Parcellation parcels;  // the template's labels (left empty by an import with a centroid table)
  sim::volume::ParcelFacts parcel_facts;
  Eigen::MatrixXd centroids;                       // token x 3, mm
  std::vector<std::int32_t> original_labels;       // an atlas's own label of each token; empty when made here
  std::vector<Eigen::MatrixXd> subject_centroids;  // jittered parcellations: each subject's own
  CardFacts facts;
};

// One sample's slots: the window's activity [token, time], its subject, its first point.
struct WindowSlots {
  float* activity;
  std::int64_t* subject;
  std::int64_t* start;
};

class ParcelSource {
 public:
  virtual ~ParcelSource() = default;
  const ParcelTemplate& parcels() const { return t_; }
  // Splits whose sizes the source decides (an import's files); a simulation's are the config's.
  virtual std::vector<std::pair<std::string, std::int64_t>> fixed_splits() const { return {}; }
  // Called from the driver's threads, any sample in any order.
  virtual void fill(const datasets::SampleKey& key, const WindowSlots& out) const = 0;
  // The shard attributes that say how the activity was made.
  virtual void add_attributes(datasets::Attributes& a) const = 0;

 protected:
  ParcelTemplate t_;
};

std::unique_ptr<ParcelSource> simulate_source(const ParcelsOptions& o);
std::unique_ptr<ParcelSource> import_source(const ParcelsOptions& o);

// Each token's region name from o.label_file, by the atlas's own label (t.original_labels); every label must have
// one. Nothing when no label file is given.
void name_tokens(ParcelTemplate& t, const ParcelsOptions& o, const std::string& atlas);

// The card's grid line and the parcels' volume range and face count.
void describe_grid(ParcelTemplate& t, const sim::volume::Grid& g);

}  // namespace loci::volumetric_parcels
