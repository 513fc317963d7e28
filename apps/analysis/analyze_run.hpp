// `loci analyze` for one run: every probe of probe/ on every PE table of pe.h5 (one per block when each
// block adds its own) at every saved evaluation, against the run's true positions and the oracle PE, plus the
// task metrics, written as the run's analysis.json.
#pragma once

#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

#include "apps/analysis/run_folder.hpp"
#include "apps/analysis/summary.hpp"
#include "probe/distance.hpp"

namespace loci::analysis {

// Declared once, keys and flags alike, in analyze_options.cpp.
struct AnalyzeOptions {
  std::string metric = "euclidean";  // PE distance for RSA and k-NN (probe::metric_names())
  int knn_k = 4;
  int mds_dims = 2;
  // Leave-one-out decoding up to this many tokens (the LST's 16), 5-fold above.
  int leave_one_out_below = 64;
  // The shuffled-positions control: when not 0, the tokens' true positions (and every truth made of them: the
  // dataset's distances, hops and partition) are permuted among the tokens by a permutation drawn from this seed
  // before any probe runs, so that every probe of position must fall to its null. The functional connectivity,
  // made of the data, is not permuted. A learned PE never sees the positions in training, so for it this is the
  // same as training on data whose positions were shuffled.
  int shuffle_positions = 0;
  // Across runs, not part of a run's analysis.json: the PE type whose runs' attention maps the others are compared
  // with (attention_similarity.hpp).
  std::string attention_reference = "sinusoidal_2d";
  // Also score runs that have not finished (still training, paused, killed), each marked partial with the epoch
  // it reached; by default they are left out and named, so that no unfinished run is averaged in unawares.
  bool include_partial = false;
  bool force = false;  // analyse again even where analysis.json is current
  // Across runs: which pairs of groups are compared (summary.hpp).
  Comparisons comparisons = Comparisons::all;
  // Across runs: runs on different datasets (a pipeline's swept generate stage: three graphs) summarised together,
  // the dataset a replicate like the seed; comparisons still pair the runs that share a dataset and a PE draw.
  bool pool_datasets = false;
};

// Version of analysis.json's layout; bump when fields change meaning so stale files are recomputed.
constexpr int kAnalysisVersion = 11;

// The probes analysis.json also gives at initialisation (final.init_<name>) and on the displacement PE(t) - PE(0)
// (final.disp_<name>, evaluations[].displacement).
const std::vector<std::string>& baseline_probes();

nlohmann::ordered_json analyze_run(const RunFolder& run, const AnalyzeOptions& options = {});

// analysis.json of `folder` exists, has this layout version and options, and was computed from the pe.h5 and
// metrics.jsonl now in the folder (their SHA-256), so it can be kept.
bool analysis_is_current(const std::filesystem::path& folder, const AnalyzeOptions& options);

nlohmann::ordered_json options_json(const AnalyzeOptions& options);

}  // namespace loci::analysis
