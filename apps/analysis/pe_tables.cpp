#include "apps/analysis/pe_tables.hpp"

#include <algorithm>
#include <string>

#include "datasets/error.hpp"

namespace loci::analysis {

namespace fs = std::filesystem;

// The most tokens a generator makes (parcels.count's bound): the probes hold several tokens x tokens matrices, so a
// tampered pe.h5 of 10^6 positions would ask for terabytes.
constexpr std::int64_t kMaxProbeTokens = 20000;

Eigen::MatrixXd positions_of(const RunFolder& run) {
  const auto pos_it = run.pe.arrays.find("positions");
  if (pos_it == run.pe.arrays.end() || pos_it->second.shape.size() != 2)
    throw datasets::DataError(run.folder / "pe.h5", "has no [token, axis] array 'positions'");
  const auto& pos = pos_it->second;
  if (pos.shape[0] > kMaxProbeTokens)
    throw datasets::DataError(run.folder / "pe.h5", "'positions' holds " + std::to_string(pos.shape[0]) +
                                                        " tokens; the probes compare every pair of tokens and take at "
                                                        "most " +
                                                        std::to_string(kMaxProbeTokens));
  Eigen::MatrixXd positions(pos.shape[0], pos.shape[1]);
  for (Eigen::Index i = 0; i < positions.rows(); ++i)
    for (Eigen::Index j = 0; j < positions.cols(); ++j) positions(i, j) = pos.values[i * positions.cols() + j];
  return positions;
}

std::vector<std::int64_t> integers_of(const RunFolder& run, const char* name) {
  std::vector<std::int64_t> out;
  if (auto a = run.pe.arrays.find(name); a != run.pe.arrays.end())
    for (double v : a->second.values) out.push_back(static_cast<std::int64_t>(v));
  return out;
}

// The PE tables: placement_<p> arrays shaped [evaluation, token, dim]; attention-bias tables are left out.
PeTables tables_of(const RunFolder& run, Eigen::Index tokens) {
  PeTables tables;
  for (const auto& [name, array] : run.pe.arrays)
    if (name.rfind("placement_", 0) == 0 && array.shape.size() == 3 && array.shape[1] == tokens &&
        (array.dims.empty() || array.dims == "evaluation,token,dim"))
      tables.emplace_back(std::stoi(name.substr(10)), &array);
  std::sort(tables.begin(), tables.end());
  return tables;
}

Eigen::MatrixXd slice(const datasets::NumericArray& a, std::int64_t index, const fs::path& file,
                      const std::string& name) {
  if (a.shape.size() != 3) throw datasets::DataError(file, "array '" + name + "' is not [evaluation, token, dim]");
  const auto rows = a.shape[1], cols = a.shape[2];
  Eigen::MatrixXd m(rows, cols);
  const double* p = a.values.data() + index * rows * cols;
  for (Eigen::Index i = 0; i < rows; ++i)
    for (Eigen::Index j = 0; j < cols; ++j) m(i, j) = p[i * cols + j];
  // A diverged or damaged table: no probe means anything on it (and an eigendecomposition would fail inside).
  if (!m.allFinite())
    throw datasets::DataError(file, "array '" + name + "' holds NaN or infinite values at evaluation " +
                                        std::to_string(index) + " (a diverged run, or a damaged file)");
  return m;
}

}  // namespace loci::analysis
