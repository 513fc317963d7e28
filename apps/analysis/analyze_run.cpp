#include "apps/analysis/analyze_run.hpp"

#include "apps/analysis/final_probes.hpp"
#include "apps/analysis/pe_evaluations.hpp"
#include "apps/analysis/pe_tables.hpp"
#include "apps/analysis/probe_setup.hpp"
#include "apps/analysis/run_description.hpp"
#include "probe/registry.hpp"

namespace loci::analysis {

namespace fs = std::filesystem;
using nlohmann::ordered_json;

ordered_json options_json(const AnalyzeOptions& o) {
  // The registered probes are part of what computed an analysis: a probe added or changed (in loci or an extension
  // library, which bumps its version) makes every kept analysis.json stale, instead of leaving its column NaN.
  ordered_json probes = ordered_json::array();
  for (const auto* p : probe::ProbeRegistry::instance().in_order()) {
    std::string outputs;
    for (const auto& out : p->outputs) outputs += (outputs.empty() ? "" : ",") + out;
    probes.push_back(p->name + "@" + std::to_string(p->version) + ":" + outputs);
  }
  return {{"pe_metric", o.metric},
          {"knn_k", o.knn_k},
          {"mds_dims", o.mds_dims},
          {"leave_one_out_below", o.leave_one_out_below},
          {"shuffle_positions", o.shuffle_positions},
          {"probes", probes}};
}

// The probes that also run on the PE at initialisation (epoch 0) and on the displacement PE(t) - PE(0): at the
// paper's learning rate a small-sigma PE that generalises keeps most of its random draw, so the raw PE's probes
// alone say little (bench/RESULTS.md); the displacement shows what training wrote into it.
const std::vector<std::string>& baseline_probes() {
  static const std::vector<std::string> names{"rsa_spearman",
                                              "rsa_manhattan_spearman",
                                              "rsa_same_line_spearman",
                                              "rsa_hops_spearman",
                                              "rsa_fc_spearman",
                                              "procrustes_oracle_disparity",
                                              "procrustes_oracle_residual",
                                              "decode_r2",
                                              "knn_overlap",
                                              "norm_frobenius"};
  return names;
}

ordered_json analyze_run(const RunFolder& run, const AnalyzeOptions& options) {
  const Eigen::MatrixXd positions =
      options.shuffle_positions != 0
          ? permuted_rows(positions_of(run), shuffled_order(positions_of(run).rows(), options.shuffle_positions))
          : positions_of(run);
  const auto tables = tables_of(run, positions.rows());
  const ProbeSetup setup = probe_setup(run, positions, options);
  ordered_json out = describe_run(run, options, setup);
  out["evaluations"] = probe_evaluations(run, tables, setup);
  out["final"] = final_probes(run, out["evaluations"], tables, setup);
  add_final_views(out, run, tables, setup);
  return out;
}

bool analysis_is_current(const fs::path& folder, const AnalyzeOptions& options) {
  const auto text = run_file(folder, "analysis.json");
  if (!text) return false;
  try {
    const auto j = nlohmann::json::parse(*text);
    if (j.value("loci_analysis", 0) != kAnalysisVersion) return false;
    if (j.at("options") != nlohmann::json(options_json(options))) return false;
    for (const auto& [file, hash] : input_hashes(folder))
      if (j.at("inputs").value(file, "") != hash) return false;
    return true;
  } catch (const std::exception&) {
    return false;  // unreadable or foreign: recompute
  }
}

}  // namespace loci::analysis
