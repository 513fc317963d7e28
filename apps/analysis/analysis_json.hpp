// The JSON forms analysis.json is written in: numbers (NaN and infinities as null), matrices, probe reports, and
// the mean of a PE's placements.
#pragma once

#include <string>
#include <vector>

#include <Eigen/Dense>
#include <nlohmann/json.hpp>

#include "probe/probe.hpp"

namespace loci::analysis {

// NaN and infinities are not JSON: an undefined number is null.
nlohmann::ordered_json number(double v);

// Rows of numbers.
nlohmann::ordered_json matrix_json(const Eigen::MatrixXd& m);

// Every number of the built-in probes' report, by name.
nlohmann::ordered_json probe_json(const probe::ProbeReport& r);

// Mean of every numeric field over the placements (one PE per block); fields null in any placement stay null.
nlohmann::ordered_json mean_over(const nlohmann::ordered_json& placements);

// The fields `names` of `probes`, null where absent.
nlohmann::ordered_json only(const nlohmann::ordered_json& probes, const std::vector<std::string>& names);

}  // namespace loci::analysis
