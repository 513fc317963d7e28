// A small HDF5 file of whole named arrays, for run outputs such as pe.h5: built in memory, then written atomically,
// so a reader never sees half a file and an interrupted run never leaves one. Each array carries its dimension
// names (attribute "dims", comma-separated) and its doc; h5py reads it as plain datasets.
#pragma once

#include <filesystem>
#include <vector>

#include "datasets/spec.hpp"

namespace loci::data {

// Throws DataError naming `target` when it cannot be written.
void write_array_file(const std::filesystem::path& target, const std::vector<Array>& arrays,
                      const Attributes& attributes);

}  // namespace loci::data
