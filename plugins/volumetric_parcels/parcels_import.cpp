#include "parcels_import.hpp"

#include <algorithm>
#include <cctype>

#include "datasets/error.hpp"
#include "datasets/matrix_file.hpp"
#include "core/error.hpp"
#include "sim/volume/nifti.hpp"

namespace loci::volumetric_parcels {

namespace {

// The columns named x, y, z (any case) when the table has a header that names them, else the only three columns.
std::array<std::int64_t, 3> xyz_columns(const datasets::Matrix& m, const std::string& file) {
  if (!m.header.empty()) {
    std::array<std::int64_t, 3> at{-1, -1, -1};
    for (std::size_t c = 0; c < m.header.size(); ++c) {
      std::string h = m.header[c];
      std::transform(h.begin(), h.end(), h.begin(), [](unsigned char ch) { return static_cast<char>(std::tolower(ch)); });
      if (h == "x" || h == "y" || h == "z") at[static_cast<std::size_t>(h[0] - 'x')] = static_cast<std::int64_t>(c);
    }
    if (at[0] >= 0 && at[1] >= 0 && at[2] >= 0) return at;
  }
  if (m.cols != 3)
    throw datasets::DataError(file, std::to_string(m.cols) + " columns; a centroid table has three (x, y, z in mm) or a "
                                "header naming x, y and z");
  return {0, 1, 2};
}

}  // namespace

Atlas read_atlas(const ParcelsOptions& o) {
  Atlas a;
  try {
    if (is_nifti_name(o.atlas)) {
      a.labels = sim::volume::read_nifti_labels(o.atlas);
      a.original = sim::volume::relabel_consecutive(a.labels);
      if (a.original.empty()) throw datasets::DataError(o.atlas, "holds no labelled voxel");
      a.facts = sim::volume::describe_parcels(a.labels, static_cast<std::int64_t>(a.original.size()));
      a.centroids = a.facts.centroids;
      a.has_volume = true;
    } else {
      const datasets::Matrix m = datasets::read_matrix(o.atlas);
      const auto c = xyz_columns(m, o.atlas);
      a.centroids.resize(m.rows, 3);
      for (std::int64_t p = 0; p < m.rows; ++p)
        for (int k = 0; k < 3; ++k) a.centroids(p, k) = m.at(p, c[static_cast<std::size_t>(k)]);
    }
  } catch (const std::exception& e) {
    throw UserError(o.atlas_mark.str() + ": " + e.what());
  }
  return a;
}

std::vector<ImportedSplitData> read_subjects(const ParcelsOptions& o, std::int64_t parcels) {
  std::vector<ImportedSplitData> out;
  for (const auto& split : o.imports) {
    ImportedSplitData s;
    s.name = split.name;
    for (std::size_t k = 0; k < split.files.size(); ++k) {
      const std::string& file = split.files[k];
      try {
        const datasets::Matrix m = datasets::read_matrix(file, o.import_dataset);
        if (m.cols != parcels)
          throw datasets::DataError(file, std::to_string(m.cols) + " columns (parcels) but the atlas has " +
                                          std::to_string(parcels) + " parcels (a file holds time x parcels)");
        if (m.rows < o.window)
          throw datasets::DataError(file, std::to_string(m.rows) + " time points, fewer than windows.length = " +
                                          std::to_string(o.window));
        ImportedSubject sub;
        sub.file = file;
        sub.points = m.rows;
        sub.series.resize(static_cast<std::size_t>(m.rows * m.cols));
        for (std::int64_t t = 0; t < m.rows; ++t)
          for (std::int64_t p = 0; p < m.cols; ++p)
            sub.series[static_cast<std::size_t>(p * m.rows + t)] = static_cast<float>(m.at(t, p));
        sub.windows = (m.rows - o.window) / o.stride + 1;
        s.first_sample.push_back(s.samples);
        s.samples += sub.windows;
        s.subjects.push_back(std::move(sub));
      } catch (const std::exception& e) {
        throw UserError(split.marks[k].str() + ": " + e.what());
      }
    }
    out.push_back(std::move(s));
  }
  return out;
}

}  // namespace loci::volumetric_parcels
