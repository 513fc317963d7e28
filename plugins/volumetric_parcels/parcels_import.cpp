#include "parcels_import.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>

#include "core/config/fail_at.hpp"
#include "core/error.hpp"
#include "core/printable.hpp"
#include "datasets/error.hpp"
#include "datasets/matrix_file.hpp"
#include "sim/volume/label_names.hpp"
#include "sim/volume/nifti.hpp"

namespace loci::volumetric_parcels {

namespace {

// The columns named x, y, z (any case) when the table has a header that names them, else the only three columns.
std::array<std::int64_t, 3> xyz_columns(const datasets::Matrix& m, const std::string& file) {
  if (!m.header.empty()) {
    std::array<std::int64_t, 3> at{-1, -1, -1};
    for (std::size_t c = 0; c < m.header.size(); ++c) {
      std::string h = m.header[c];
      std::transform(h.begin(), h.end(), h.begin(),
                     [](unsigned char ch) { return static_cast<char>(std::tolower(ch)); });
      if (h == "x" || h == "y" || h == "z") at[static_cast<std::size_t>(h[0] - 'x')] = static_cast<std::int64_t>(c);
    }
    if (at[0] >= 0 && at[1] >= 0 && at[2] >= 0) return at;
  }
  if (m.cols != 3)
    throw datasets::DataError(file, std::to_string(m.cols) +
                                        " columns; a centroid table has three (x, y, z in mm) or a "
                                        "header naming x, y and z");
  return {0, 1, 2};
}

// A column name as a header spells it, without the quotes a CSV writer may put around it.
std::string unquoted(std::string name) {
  if (name.size() >= 2 && (name.front() == '"' || name.front() == '\'') && name.back() == name.front())
    name = name.substr(1, name.size() - 2);
  return name;
}

// With import.regions: the series' columns the table names, in its order; the others are left out.
datasets::Matrix mapped_columns(const datasets::Matrix& m, const ParcelsOptions& o, const std::string& file) {
  if (o.region_map.empty()) return m;
  if (m.header.empty()) throw datasets::DataError(file, "has no header, and import.regions picks its columns by name");
  std::vector<std::int64_t> at;
  for (const auto& [column, region] : o.region_map) {
    std::int64_t found = -1;
    for (std::size_t c = 0; c < m.header.size(); ++c)
      if (unquoted(m.header[c]) == column) found = static_cast<std::int64_t>(c);
    if (found < 0)
      throw datasets::DataError(file, "has no column '" + column + "' (named in " + o.import_regions + ")");
    at.push_back(found);
  }
  datasets::Matrix out;
  out.rows = m.rows;
  out.cols = static_cast<std::int64_t>(at.size());
  for (std::int64_t r = 0; r < m.rows; ++r)
    for (const auto c : at) out.values.push_back(m.at(r, c));
  for (const auto c : at) out.header.push_back(m.header[static_cast<std::size_t>(c)]);
  return out;
}

// import.standardize: each column z-scored over all of its rows.
datasets::Matrix standardized(datasets::Matrix m, bool standardize) {
  if (!standardize || m.rows == 0) return m;
  for (std::int64_t c = 0; c < m.cols; ++c) {
    double mean = 0, ss = 0;
    for (std::int64_t r = 0; r < m.rows; ++r) mean += m.at(r, c);
    mean /= static_cast<double>(m.rows);
    for (std::int64_t r = 0; r < m.rows; ++r) ss += (m.at(r, c) - mean) * (m.at(r, c) - mean);
    const double sd = std::sqrt(ss / static_cast<double>(m.rows));
    for (std::int64_t r = 0; r < m.rows; ++r) {
      double& x = m.values[static_cast<std::size_t>(r * m.cols + c)];
      x = sd > 0 ? (x - mean) / sd : 0.0;
    }
  }
  return m;
}

// import.points: the split's time points [first, end) of one file.
datasets::Matrix time_range(const datasets::Matrix& m, const SubjectFiles& split, const std::string& file) {
  if (split.first_point == 0 && split.end_point == -1) return m;
  const std::int64_t end = split.end_point == -1 ? m.rows : split.end_point;
  if (end > m.rows || split.first_point >= end)
    throw UserError(split.points_mark.str() + ": import.points." + split.name + " asks for points " +
                    std::to_string(split.first_point) + " to " + std::to_string(end) + " of " + file + ", which has " +
                    std::to_string(m.rows));
  datasets::Matrix out = m;
  out.rows = end - split.first_point;
  out.values.assign(m.values.begin() + split.first_point * m.cols, m.values.begin() + end * m.cols);
  return out;
}

// The atlas cut to import.regions' regions, numbered 1..K in the table's order (so token k is the table's row k).
void keep_mapped_regions(Atlas& a, const ParcelsOptions& o) {
  const auto names = sim::volume::read_label_names(o.label_file);
  std::map<std::string, std::int32_t> label_of;
  for (const auto& [label, name] : names) label_of.emplace(name, label);
  std::map<std::int32_t, std::int32_t> token_of;  // the file's label -> 1..K
  for (const auto& [column, region] : o.region_map) {
    const auto it = label_of.find(region);
    if (it == label_of.end())
      throw UserError(o.import_regions_mark.str() + ": import.regions maps column '" + printable(column) + "' to '" +
                      printable(region) + "', which " + o.label_file + " does not name");
    token_of[it->second] = static_cast<std::int32_t>(a.original.size()) + 1;
    a.original.push_back(it->second);
  }
  for (auto& v : a.labels.labels) {
    const auto it = v ? token_of.find(v) : token_of.end();
    v = it == token_of.end() ? 0 : it->second;
  }
  const auto present = a.labels.distinct_labels();
  if (static_cast<std::int64_t>(present.size()) != static_cast<std::int64_t>(a.original.size()))
    for (std::size_t k = 0; k < a.original.size(); ++k)
      if (!std::binary_search(present.begin(), present.end(), static_cast<std::int32_t>(k + 1)))
        throw UserError(o.import_regions_mark.str() + ": import.regions: region '" + printable(o.region_map[k].second) +
                        "' has no voxel in " + o.atlas);
}

// A token for each block of b^3 voxels holding a voxel whose series varies in `series`, numbered 1..P in block
// order (x fastest, as NIfTI stores voxels); constant voxels get 0.
Atlas voxel_blocks(const sim::volume::SeriesVolume& series, std::int64_t b, const std::string& file) {
  Atlas a;
  const auto& g = series.grid;
  a.labels.grid = g;
  a.labels.labels.assign(static_cast<std::size_t>(g.voxels()), 0);
  const std::int64_t bx = (g.dims[0] + b - 1) / b, by = (g.dims[1] + b - 1) / b;
  for (std::int64_t v = 0; v < g.voxels(); ++v) {
    bool varies = false;
    for (std::int64_t t = 1; t < series.points && !varies; ++t) varies = series.at(v, t) != series.at(v, 0);
    if (!varies) {
      ++a.constant_voxels;
      continue;
    }
    const auto ijk = g.ijk(v);
    const std::int64_t block = ijk[0] / b + bx * (ijk[1] / b + by * (ijk[2] / b));
    if (block + 1 > 2147483647) throw datasets::DataError(file, "has more voxel blocks than a label can number");
    a.labels.labels[static_cast<std::size_t>(v)] = static_cast<std::int32_t>(block + 1);
  }
  a.original = sim::volume::relabel_consecutive(a.labels);
  if (a.original.empty())
    throw datasets::DataError(
        file, "has no voxel whose series varies over its " + std::to_string(series.points) + " volumes");
  a.facts = sim::volume::describe_parcels(a.labels, static_cast<std::int64_t>(a.original.size()));
  a.centroids = a.facts.centroids;
  a.has_volume = true;
  return a;
}

// One 4-D run as time x tokens: each token the mean of its voxels, on the first subject's grid.
datasets::Matrix block_means(const std::string& file, const Atlas& atlas) {
  const auto series = sim::volume::read_nifti_series(file);
  const auto& g = atlas.labels.grid;
  if (series.grid.dims != g.dims || !series.grid.affine.isApprox(g.affine, 1e-6))
    throw datasets::DataError(file, "is not on the first subject's grid (" + std::to_string(g.dims[0]) + " x " +
                                        std::to_string(g.dims[1]) + " x " + std::to_string(g.dims[2]) +
                                        " voxels, the same affine): resample the runs onto one grid first");
  datasets::Matrix m;
  m.rows = series.points;
  m.cols = static_cast<std::int64_t>(atlas.original.size());
  m.values.assign(static_cast<std::size_t>(m.rows * m.cols), 0.0);
  for (std::int64_t v = 0; v < g.voxels(); ++v) {
    const std::int32_t token = atlas.labels.labels[static_cast<std::size_t>(v)];
    if (token == 0) continue;
    for (std::int64_t t = 0; t < m.rows; ++t)
      m.values[static_cast<std::size_t>(t * m.cols + token - 1)] += series.at(v, t);
  }
  for (std::int64_t t = 0; t < m.rows; ++t)
    for (std::int64_t p = 0; p < m.cols; ++p)
      m.values[static_cast<std::size_t>(t * m.cols + p)] /=
          static_cast<double>(atlas.facts.voxels[static_cast<std::size_t>(p)]);
  return m;
}

}  // namespace

std::vector<std::string> left_out_columns(const ParcelsOptions& o, const std::string& file) {
  if (o.region_map.empty()) return {};
  const datasets::Matrix m = datasets::read_matrix(file, o.import_dataset);
  std::vector<std::string> out;
  for (const auto& h : m.header) {
    const std::string name = unquoted(h);
    if (std::none_of(o.region_map.begin(), o.region_map.end(), [&](const auto& e) { return e.first == name; }))
      out.push_back(name);
  }
  return out;
}

Atlas read_atlas(const ParcelsOptions& o) {
  Atlas a;
  try {
    if (o.voxel_series) {
      const std::string& first = o.imports.front().files.front();
      try {
        return voxel_blocks(sim::volume::read_nifti_series(first), o.voxel_block, first);
      } catch (const std::exception& e) {
        config::fail_at(o.imports.front().marks.front(), e.what());
      }
    }
    if (is_nifti_name(o.atlas) && !o.region_map.empty()) {
      a.labels = sim::volume::read_nifti_labels(o.atlas);
      keep_mapped_regions(a, o);
      a.facts = sim::volume::describe_parcels(a.labels, static_cast<std::int64_t>(a.original.size()));
      a.centroids = a.facts.centroids;
      a.has_volume = true;
    } else if (is_nifti_name(o.atlas)) {
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
  } catch (const UserError&) {
    throw;
  } catch (const std::exception& e) {
    config::fail_at(o.atlas_mark, e.what());
  }
  return a;
}

std::vector<ImportedSplitData> read_subjects(const ParcelsOptions& o, const Atlas& atlas) {
  const auto parcels = static_cast<std::int64_t>(atlas.centroids.rows());
  std::vector<ImportedSplitData> out;
  for (const auto& split : o.imports) {
    ImportedSplitData s;
    s.name = split.name;
    for (std::size_t k = 0; k < split.files.size(); ++k) {
      const std::string& file = split.files[k];
      try {
        const datasets::Matrix m = time_range(
            standardized(o.voxel_series ? block_means(file, atlas)
                                        : mapped_columns(datasets::read_matrix(file, o.import_dataset), o, file),
                         o.standardize),
            split, file);
        if (m.cols != parcels)
          throw datasets::DataError(file, std::to_string(m.cols) + " columns (parcels) but the atlas has " +
                                              std::to_string(parcels) + " parcels (a file holds time x parcels)");
        if (m.rows < o.window)
          throw datasets::DataError(
              file, std::to_string(m.rows) + " time points, fewer than windows.length = " + std::to_string(o.window));
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
        config::fail_at(split.marks[k], e.what());
      }
    }
    out.push_back(std::move(s));
  }
  return out;
}

}  // namespace loci::volumetric_parcels
