// What the volumetric_parcels plugin tests share: a tiny simulated config, a small NIfTI atlas of three blocks, and
// CSV series of known values.
#pragma once

#include <cstring>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "datasets/spec.hpp"
#include "sim/volume/grid.hpp"

namespace loci::test::parcels {

namespace vol = loci::sim::volume;

// 16 parcels of a small two-hemisphere ellipsoid on 6 mm voxels: 12 x 14 x 10 voxels.
inline const char* kConfig = R"yaml(
generator: volumetric_parcels
seed: 4
splits: {train: 12, test: 4}
subjects: {train: 3, test: 1}
samples_per_shard: 8
compression: none
threads: 1
volume: {semi_axes_mm: [30, 36, 24], voxel_mm: 6}
parcels: {count: 16, mirror: true}
activity: {burn_in: 5, hemodynamics: balloon, field: {fwhm_mm: 10}}
windows: {length: 10}
)yaml";

template <class T>
std::vector<T> values(const loci::datasets::Array& a) {
  std::vector<T> out(a.bytes.size() / sizeof(T));
  std::memcpy(out.data(), a.bytes.data(), a.bytes.size());
  return out;
}

// A 6 x 5 x 4 atlas of 2 mm voxels (x flipped, as radiological files are) with three blocks labelled 10, 20, 30.
inline vol::LabelVolume block_atlas() {
  vol::LabelVolume v;
  v.grid.dims = {6, 5, 4};
  v.grid.affine << -2, 0, 0, 5, 0, 2, 0, -4, 0, 0, 2, 1, 0, 0, 0, 1;
  v.labels.assign(120, 0);
  for (std::int64_t k = 0; k < 4; ++k)
    for (std::int64_t j = 0; j < 5; ++j)
      for (std::int64_t i = 0; i < 6; ++i)
        if (j < 4) v.labels[static_cast<std::size_t>(v.grid.index(i, j, k))] = i < 2 ? 10 : i < 4 ? 20 : 30;
  return v;
}

// The mean mm position of each label's voxels.
inline std::map<std::int32_t, Eigen::Vector3d> label_centroids(const vol::LabelVolume& v) {
  std::map<std::int32_t, Eigen::Vector3d> sum;
  std::map<std::int32_t, double> n;
  for (std::int64_t i = 0; i < v.grid.voxels(); ++i) {
    const auto l = v.labels[static_cast<std::size_t>(i)];
    if (l == 0) continue;
    if (!sum.count(l)) sum[l] = Eigen::Vector3d::Zero();
    sum[l] += v.grid.mm(i);
    n[l] += 1;
  }
  for (auto& [l, s] : sum) s /= n[l];
  return sum;
}

inline std::string series_csv(int points, int parcels, int offset) {
  std::ostringstream s;
  for (int p = 0; p < parcels; ++p) s << (p ? "," : "") << "parcel_" << p;
  s << "\n";
  for (int t = 0; t < points; ++t)
    for (int p = 0; p < parcels; ++p) s << (p ? "," : "") << offset + 100 * t + p << (p + 1 == parcels ? "\n" : "");
  return s.str();
}

}  // namespace loci::test::parcels
