#include "apps/analysis/analysis_json.hpp"

#include <cmath>

namespace loci::analysis {

using nlohmann::ordered_json;

// NaN and infinities are not JSON: an undefined number is null.
ordered_json number(double v) { return std::isfinite(v) ? ordered_json(v) : ordered_json(nullptr); }

ordered_json matrix_json(const Eigen::MatrixXd& m) {
  ordered_json rows = ordered_json::array();
  for (Eigen::Index i = 0; i < m.rows(); ++i) {
    ordered_json row = ordered_json::array();
    for (Eigen::Index j = 0; j < m.cols(); ++j) row.push_back(number(m(i, j)));
    rows.push_back(std::move(row));
  }
  return rows;
}

ordered_json probe_json(const probe::ProbeReport& r) {
  ordered_json j;
  for (const auto& [name, value] : probe::to_pairs(r)) j[name] = number(value);
  return j;
}

// Mean of every numeric field over the placements (one PE per block); fields null in any placement stay null.
ordered_json mean_over(const ordered_json& placements) {
  ordered_json mean;
  if (placements.empty()) return mean;
  for (const auto& [key, first] : placements.front().items()) {
    if (key == "placement") continue;
    double sum = 0;
    bool defined = true;
    for (const auto& p : placements) {
      if (!p.contains(key) || !p[key].is_number()) {
        defined = false;
        break;
      }
      sum += p[key].get<double>();
    }
    mean[key] = defined ? ordered_json(sum / static_cast<double>(placements.size())) : ordered_json(nullptr);
  }
  return mean;
}

ordered_json only(const ordered_json& probes, const std::vector<std::string>& names) {
  ordered_json out;
  for (const auto& n : names) out[n] = probes.contains(n) ? probes[n] : ordered_json(nullptr);
  return out;
}

}  // namespace loci::analysis
