// The last evaluation's probes with their controls beside them (at initialisation, on the displacement, on an
// independent draw, the permutation p-value, the task's structure taken out), and the final views the report draws.
#pragma once

#include <nlohmann/json.hpp>

#include "apps/analysis/pe_tables.hpp"
#include "apps/analysis/probe_setup.hpp"

namespace loci::analysis {

// analysis.json's final; null when the run has no evaluation.
nlohmann::ordered_json final_probes(const RunFolder& run, const nlohmann::ordered_json& evaluations,
                                    const PeTables& tables, const ProbeSetup& s);

// true_distance, and the last PE of the first placement as an MDS embedding and a cosine-similarity matrix.
void add_final_views(nlohmann::ordered_json& out, const RunFolder& run, const PeTables& tables, const ProbeSetup& s);

}  // namespace loci::analysis
