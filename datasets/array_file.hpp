// A small HDF5 file of whole named arrays, for run outputs such as pe.h5: built in memory, then written atomically,
// so a reader never sees half a file and an interrupted run never leaves one. Each array carries its dimension
// names (attribute "dims", comma-separated) and its doc; h5py reads it as plain datasets.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "datasets/spec.hpp"

namespace loci::datasets {

// Throws DataError naming `target` when it cannot be written.
void write_array_file(const std::filesystem::path& target, const std::vector<Array>& arrays,
                      const Attributes& attributes);

// One array of such a file as read back for analysis: its shape and its values converted to double, row-major.
struct NumericArray {
  std::vector<std::int64_t> shape;
  std::vector<double> values;
  std::string dims;  // its "dims" attribute ("evaluation,token,dim"), "" when it has none
};

struct ArrayFileContents {
  Attributes attributes;                       // root attributes
  std::map<std::string, NumericArray> arrays;  // every numeric dataset in the root group, by name
};

// Reads every numeric root dataset of an HDF5 file (pe.h5, attention.h5, ...). DataError naming `source` when it
// is missing, not HDF5, or truncated.
ArrayFileContents read_array_file(const std::filesystem::path& source);

}  // namespace loci::datasets
