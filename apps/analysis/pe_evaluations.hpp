// The probes at every saved evaluation of a run's PE: each placement's, their mean with the RSA's permutation test,
// the displacement from epoch 0 and the attention's position term; and when the PE took the shape (onset.hpp).
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include <Eigen/Dense>
#include <nlohmann/json.hpp>

#include "apps/analysis/pe_tables.hpp"
#include "apps/analysis/probe_setup.hpp"

namespace loci::analysis {

// analysis.json's evaluations: one row per evaluation of pe.h5.
nlohmann::ordered_json probe_evaluations(const RunFolder& run, const PeTables& tables, const ProbeSetup& s);

// Each PE table's distance matrix at evaluation e.
std::vector<Eigen::MatrixXd> pe_distances(const PeTables& tables, std::int64_t e, const std::filesystem::path& file,
                                          const ProbeSetup& s);

// The first evaluation where `statistic` of `section` (mean, attention_term) leaves its epoch-0 value; null if none.
nlohmann::ordered_json onset_of(const nlohmann::ordered_json& evaluations, const char* section,
                                const std::string& statistic);

// Whether the last evaluation took the shape (onset.hpp's one definition); null without an epoch-0 baseline.
nlohmann::ordered_json took_shape_at_end(const nlohmann::ordered_json& evaluations, const char* section,
                                         const std::string& statistic);

}  // namespace loci::analysis
