// What an analysis is of: the run (its identity, PE draw, task), its final metrics and curves, the files it was
// computed from, and the truths it was scored against: analysis.json's header.
#pragma once

#include <filesystem>
#include <map>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "apps/analysis/analyze_run.hpp"
#include "apps/analysis/probe_setup.hpp"
#include "apps/analysis/run_folder.hpp"

namespace loci::analysis {

nlohmann::ordered_json describe_run(const RunFolder& run, const AnalyzeOptions& options, const ProbeSetup& s);

// SHA-256 of the files an analysis reads (pe.h5, metrics.jsonl, interventions.json: "" while absent).
std::map<std::string, std::string> input_hashes(const std::filesystem::path& folder);

// A run restored from a bundle keeps only its first and last evaluations of the PE: pe.h5's attribute
// abridged_history says so, and no onset can be measured from it.
std::optional<std::string> abridged_history(const RunFolder& run);

}  // namespace loci::analysis
