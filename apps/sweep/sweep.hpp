// Sweeps (`loci train CONFIG -m key=v1,v2 ...`): one run folder per point under the config's `out`, run as separate
// `loci train` processes, `jobs` at a time, each with cores/jobs threads; points whose run has finished are skipped.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "core/config/node.hpp"

namespace loci::apps {

struct SweepPoint {
  std::vector<std::string> overrides;  // the point's `key=value`s
  std::string name;                    // its folder name: "model.pe.init.std=0.2,seed=1"
};

struct Sweep {
  std::vector<std::string> fixed;  // overrides with one value: applied to every point, not part of folder names
  std::vector<SweepPoint> points;  // the grid of the overrides with several values
};

Sweep plan_sweep(const std::vector<std::string>& sweep_args);

// A point's folder name from its overrides, joined by ','. A value must not open a sub-folder, and two points must
// never share a folder, so '/', ' ' and '%' are percent-encoded (%2F, %20, %25): `data=../data/lst` and
// `data=.._data_lst` stay apart.
std::string point_folder_name(const std::vector<std::string>& overrides);

struct SweepRequest {
  std::string config;
  std::vector<std::string> fixed_overrides;  // applied to every point
  std::string out;                           // sweep root
  int jobs = 1;
  int threads_per_job = 1;  // train.threads of each run; 0 = the config's own (the user set train.threads)
  bool resume = false;
  std::vector<std::string> scheduler_options;  // `--sbatch KEY=VALUE`s of an emitted job array
};

// Whether a resolved train config sets train.threads itself (to a count, not 0 = "all cores"): a sweep then keeps
// it instead of sharing the cores between its jobs.
bool user_threads(const config::Node& train_config);

// Returns the number of points that failed (their logs are named on stderr).
int run_sweep(const SweepRequest& request, const std::vector<SweepPoint>& points);

// The last non-empty line of a run's log (its `loci: error:` line when it failed), at most 300 characters.
std::string last_line(const std::filesystem::path& log);

// The headline of a finished run, from its summary.json: "human 93.5%", "test mse 0.0123"; "" when it has none.
std::string headline(const std::filesystem::path& run);

// One point's `loci train` arguments, after the program name: what run_sweep starts and what the emitters write.
std::vector<std::string> point_arguments(const SweepRequest& request, const SweepPoint& point);

// The sweep as text for a scheduler loci does not run itself (apps/sweep/emit.cpp): `list`, one shell command a
// line (GNU parallel, a cluster's own queue), or `slurm`, a job-array script with one array task per point. Every
// command passes --resume: run again, it skips a finished point and continues an interrupted one.
std::string emit_sweep(const std::string& format, const SweepRequest& request, const std::vector<SweepPoint>& points);
std::vector<std::string> sweep_emitters();

}  // namespace loci::apps
