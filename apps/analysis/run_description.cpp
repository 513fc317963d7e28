#include "apps/analysis/run_description.hpp"

#include <variant>

#include "apps/analysis/analysis_json.hpp"
#include "apps/analysis/analyze_run.hpp"
#include "apps/analysis/run_extras.hpp"
#include "datasets/checksum.hpp"

namespace loci::analysis {

namespace fs = std::filesystem;
using nlohmann::ordered_json;

namespace {

ordered_json metric_history(const RunFolder& run) {
  ordered_json curves = ordered_json::array();
  for (const auto& m : run.metrics) {
    ordered_json row;
    for (const char* key : {"epoch", "step", "split", "loss", "accuracy", "mse", "r2_token_mean"})
      if (m.contains(key) && !m[key].is_null()) row[key] = m[key];
    curves.push_back(std::move(row));
  }
  return curves;
}

// The last evaluation's row of each split.
ordered_json final_metrics(const RunFolder& run) {
  ordered_json out = ordered_json::object();
  for (const auto& m : run.metrics) {
    if (!m.contains("split")) continue;
    ordered_json row;
    for (const auto& [key, value] : m.items())
      if (key != "split" && key != "seconds" && key != "lr" && !value.is_null()) row[key] = value;
    out[m["split"].get<std::string>()] = std::move(row);
  }
  return out;
}

// The task as the trainer resolved it against the dataset (summary.json), so that a reader needs no YAML and no rules
// of the trainer's. A run without that record (unfinished, or from an older loci) gives its config's type and the
// classes it names, or the LST grid's N when it names 0 (the trainer's rule then); null where nothing says.
ordered_json task_json(const RunFolder& run, const DatasetTruth& truth) {
  if (run.summary.is_object() && run.summary.contains("task")) return run.summary.at("task");
  const std::int64_t configured = run.settings.classes;
  ordered_json j = {{"type", run.settings.task_type.value_or("unknown")}, {"classes", nullptr}};
  if (configured > 0)
    j["classes"] = configured;
  else if (truth.grid_n > 0)
    j["classes"] = truth.grid_n;
  return j;
}

// Which random draw the run's PE tables came from, so that the summary can pair runs sharing one: summary.json's
// pe_draw (the trainer's effective draw seed), else what model.pe.draw says (absent or "seed": the run's seed; a
// number: that seed's draw; "run": a draw of its own).
ordered_json pe_draw_of(const RunFolder& run) {
  if (run.summary.is_object() && run.summary.contains("pe_draw") && run.summary["pe_draw"].is_number_unsigned())
    return run.summary["pe_draw"];
  const std::string mode = run.settings.pe_draw.value_or("seed");
  if (mode == "seed") return run.identity.seed;
  if (mode == "run") return "own draw of " + run.folder.string();
  return mode;
}

}  // namespace

std::map<std::string, std::string> input_hashes(const fs::path& folder) {
  // interventions.json (loci intervene) is optional: "" while absent, so that writing it makes the analysis stale.
  const fs::path interventions = folder / "interventions.json";
  return {{"pe.h5", datasets::sha256_file(folder / "pe.h5")},
          {"metrics.jsonl", datasets::sha256_file(folder / "metrics.jsonl")},
          {"interventions.json", fs::is_regular_file(interventions) ? datasets::sha256_file(interventions) : ""}};
}

// A run restored from a bundle (bench/bundles/restore_runs.py) keeps only its first and last evaluations of the PE
// (pe.h5's attribute abridged_history says so): its onset cannot be measured from them, and is null, not the last
// epoch.
std::optional<std::string> abridged_history(const RunFolder& run) {
  const auto it = run.pe.attributes.find("abridged_history");
  if (it == run.pe.attributes.end() || !std::holds_alternative<std::string>(it->second)) return std::nullopt;
  return std::get<std::string>(it->second);
}

// What the analysis is of: the run, its final metrics and curves, and the truths it was scored against.
ordered_json describe_run(const RunFolder& run, const AnalyzeOptions& options, const ProbeSetup& s) {
  ordered_json out;
  out["loci_analysis"] = kAnalysisVersion;
  out["options"] = options_json(options);
  ordered_json inputs;
  for (const auto& [file, hash] : input_hashes(run.folder)) inputs[file] = hash;
  out["inputs"] = inputs;
  const RunIdentity& id = run.identity;
  out["run"] = {{"folder", run.folder.string()},
                {"group", id.group()},
                {"pe_type", id.pe_type},
                {"placement", id.placement},
                {"init", id.init},
                {"sigma", id.sigma},
                {"drawn", id.drawn},
                {"seed", id.seed},
                {"pe_draw", pe_draw_of(run)},
                {"data", run.settings.data}};
  if (const auto abridged = abridged_history(run)) out["run"]["abridged_history"] = *abridged;
  out["metrics"] = final_metrics(run);
  out["curves"] = metric_history(run);
  out["robustness"] = robustness_of(run);
  out["interventions"] = interventions_of(run);
  out["dataset"] = {{"folder", run.settings.data},
                    {"generator", s.truth.generator.empty() ? ordered_json(nullptr) : ordered_json(s.truth.generator)}};
  out["task"] = task_json(run, s.truth);
  out["tokens"] = s.context.positions.rows();
  out["positions"] = matrix_json(s.context.positions);
  out["partition"] = s.partition_name;
  out["true_distance_source"] =
      s.truth.distance.size() > 0 ? "the dataset's /distance" : "euclidean distance between the positions";
  if (!s.truth.note.empty()) out["dataset_note"] = s.truth.note;
  if (s.truth.fc.size() > 0) out["functional_connectivity"] = fc_summary(s);
  if (!s.structure.readout.empty()) out["readout_tokens"] = s.structure.readout;
  out["partial_rsa_covariates"] = s.structure.covariate_names;
  out["oracle"] = "sinusoids of the true positions, d_model columns split over the axes (probe/oracle.hpp)";
  return out;
}

}  // namespace loci::analysis
