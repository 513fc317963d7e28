// A run's saved PE (pe.h5) as the probes take it: the true positions, the evaluations' epochs and steps, and each
// placement's table at an evaluation as a matrix, refused in one line where the file is damaged or too large.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include <Eigen/Dense>

#include "apps/analysis/run_folder.hpp"

namespace loci::analysis {

// The PE tables: (placement index, its [evaluation, token, dim] array), by placement.
using PeTables = std::vector<std::pair<int, const datasets::NumericArray*>>;

// pe.h5's [token, axis] positions; DataError when absent or past the tokens the probes can compare.
Eigen::MatrixXd positions_of(const RunFolder& run);

// pe.h5's integer array `name` (epoch, step), empty when absent.
std::vector<std::int64_t> integers_of(const RunFolder& run, const char* name);

// The placement_<p> arrays shaped [evaluation, token, dim] of `tokens` tokens; attention-bias tables are left out.
PeTables tables_of(const RunFolder& run, Eigen::Index tokens);

// Evaluation `index` of the table `a` (named `name` in `file`); DataError when it is not finite.
Eigen::MatrixXd slice(const datasets::NumericArray& a, std::int64_t index, const std::filesystem::path& file,
                      const std::string& name);

}  // namespace loci::analysis
