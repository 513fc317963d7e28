#include "parcels_layout.hpp"

#include "sim/volume/mask.hpp"
#include "sim/volume/parcel_facts.hpp"

namespace loci::volumetric_parcels {

namespace {

using datasets::DType;
namespace vol = sim::volume;

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

// Where each token is: centroids, their distances and hemispheres.
void add_position_arrays(datasets::DatasetLayout& layout, const ParcelTemplate& t, std::int64_t n) {
  std::vector<float> positions;
  for (std::int64_t i = 0; i < n; ++i)
    for (int a = 0; a < 3; ++a) positions.push_back(static_cast<float>(t.centroids(i, a)));
  auto& d = layout.dataset_arrays;
  d.push_back(datasets::Array::of(
      {"positions", DType::f32, {"token", "axis"}, {n, 3}, "centroid of each parcel, mm (x left-right, y, z)"},
      positions));
  d.push_back(datasets::Array::of(
      {"distance", DType::f32, {"token", "peer"}, {n, n}, "euclidean distance between centroids, mm"},
      vol::distance_matrix(t.centroids)));
  d.push_back(datasets::Array::of({"hemisphere", DType::u8, {"token"}, {n}, "0 = left (centroid x < 0 mm), 1 = right"},
                                  vol::hemispheres(t.centroids)));
}

// The parcels as voxels and labels, where the template has them.
void add_atlas_arrays(datasets::DatasetLayout& layout, const ParcelTemplate& t, const ParcelsOptions& o,
                      std::int64_t n) {
  auto& d = layout.dataset_arrays;
  if (!t.parcels.labels.labels.empty()) {
    const auto& g = t.parcels.labels.grid;
    d.push_back(datasets::Array::of(
        {"adjacency", DType::u8, {"token", "peer"}, {n, n}, "1 where two parcels share a voxel face"},
        t.parcel_facts.adjacency));
    d.push_back(datasets::Array::of({"volumes", DType::f32, {"token"}, {n}, "volume of each parcel, mm^3"},
                                    cast<float>(t.parcel_facts.volumes_mm3)));
    d.push_back(datasets::Array::of({"labels",
                                     DType::i32,
                                     {"x", "y", "z"},
                                     {g.dims[0], g.dims[1], g.dims[2]},
                                     "parcel (token + 1) of each voxel, 0 outside; indexed [x, y, z]"},
                                    xyz_order(t.parcels.labels)));
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
  if (!t.original_labels.empty())
    d.push_back(datasets::Array::of({"atlas_label", DType::i32, {"token"}, {n}, "the atlas's own label of each parcel"},
                                    t.original_labels));
  if (!t.facts.token_labels.empty())
    layout.text_arrays.push_back({"token_label", "token", t.facts.token_labels,
                                  "region name of each parcel, from the atlas's label file " + o.label_file});
}

void add_subject_positions(datasets::DatasetLayout& layout, const ParcelTemplate& t, std::int64_t n) {
  if (t.subject_centroids.empty()) return;
  std::vector<float> own;
  for (const auto& c : t.subject_centroids)
    for (std::int64_t i = 0; i < n; ++i)
      for (int a = 0; a < 3; ++a) own.push_back(static_cast<float>(c(i, a)));
  layout.dataset_arrays.push_back(
      datasets::Array::of({"subject_positions",
                           DType::f32,
                           {"subjects", "token", "axis"},
                           {static_cast<std::int64_t>(t.subject_centroids.size()), n, 3},
                           "each subject's own parcel centroids, mm (jittered parcellations)"},
                          own));
}

}  // namespace

datasets::DatasetLayout parcels_layout(const ParcelSource& source, const ParcelsOptions& o) {
  const ParcelTemplate& t = source.parcels();
  const auto n = static_cast<std::int64_t>(t.centroids.rows());
  datasets::DatasetLayout layout;
  layout.sample_arrays = {
      {"activity",
       DType::f32,
       {"token", "time"},
       {n, o.window},
       "one token per parcel: its activity over the window's w points"},
      {"subject", DType::i64, {}, {}, "index of the subject the window comes from (subjects numbered across splits)"},
      {"start", DType::i64, {}, {}, "the window's first point within the subject's series"},
  };
  add_position_arrays(layout, t, n);
  add_atlas_arrays(layout, t, o, n);
  add_subject_positions(layout, t, n);
  auto& a = layout.attributes;
  a["source"] = choice_name(o.source);
  a["parcels"] = n;
  a["window"] = o.window;
  a["stride"] = o.stride;
  source.add_attributes(a);
  return layout;
}

}  // namespace loci::volumetric_parcels
