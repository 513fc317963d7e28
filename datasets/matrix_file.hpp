// A user's numeric table read whole, e.g. one subject's parcellated time series (time x parcels) or an atlas's
// centroids (parcels x 3): from HDF5 (.h5, .hdf5) or delimited text (.csv, .tsv, .txt). Every problem is one
// DataError that starts with the file (and the line, for text).
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace loci::datasets {

struct Matrix {
  std::int64_t rows = 0, cols = 0;
  std::vector<double> values;       // row-major
  std::vector<std::string> header;  // text only: the column names when the first line is not all numbers

  double at(std::int64_t r, std::int64_t c) const { return values[static_cast<std::size_t>(r * cols + c)]; }
};

// HDF5: the 2-D numeric dataset at path `dataset`, or with "" the file's only 2-D numeric dataset (searched through
// every group). Text: fields separated by commas, tabs or blanks; blank lines and lines starting with '#' are
// skipped; a first line that is not all numbers is the header. Every row must have as many fields as the first,
// every value must be a finite number.
Matrix read_matrix(const std::filesystem::path& file, const std::string& dataset = "");

}  // namespace loci::datasets
