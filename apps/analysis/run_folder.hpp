// A finished (or interrupted) training run as the analyses see it: its resolved config, its metrics history and
// its saved PEs (pe.h5), read from the folder `loci train` wrote, without LibTorch.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/config/node.hpp"
#include "datasets/array_file.hpp"

namespace loci::analysis {

// What sets a run apart in a sweep: runs that differ only in `seed` form one group, and summaries are mean +- sd
// over a group.
struct RunIdentity {
  std::string pe_type;
  std::string placement;
  std::string init;  // e.g. "normal(0.2)": the init name and its scale parameter
  double sigma = 0;  // the init's scale parameter (std, a, gain or scale, as the init uses)
  std::int64_t seed = 0;
  std::string group() const;  // "learned normal(0.2)", "sinusoidal_2d"
  bool drawn = false;         // the PE is drawn from its init (learned, random_fixed), so sigma matters
};

// The trainer's settings one run's analysis uses beside its identity, read from config.yaml once, when the folder is
// loaded: with identity_of, the one place a run's analysis spells the trainer's keys (the summary across runs groups
// by identity.json's keys instead, and reads train.epochs from config.yaml for runs that lack one). The optional ones
// may be absent from the config of an older run; each use says what absence means.
struct RunSettings {
  std::string data;  // the dataset's folder
  std::int64_t d_model = 0;
  double pe_base = 0, pe_coordinate_scale = 0;  // the sinusoidal oracle's
  std::optional<std::string> task_type, task_objective, pooling, train_split, input, pe_draw;
  std::int64_t classes = 0;  // task.classes; 0: from the dataset
};

struct RunFolder {
  std::filesystem::path folder;
  config::Node config;  // config.yaml
  RunIdentity identity;
  RunSettings settings;
  std::vector<nlohmann::json> metrics;  // metrics.jsonl rows: epoch, step, split, loss, accuracy or mse, ...
  nlohmann::ordered_json summary;       // summary.json of a finished run, null while it has none
  datasets::ArrayFileContents pe;       // pe.h5
};

// The run folders at or below each root (a folder holding config.yaml and pe.h5), sorted, no duplicates.
// UserError naming a root that does not exist or holds no run.
std::vector<std::filesystem::path> find_run_folders(const std::vector<std::filesystem::path>& roots);

// A file of a run folder read within bounds (datasets/bounded_read.hpp): a regular file inside the folder, of at
// most the size such a file can have (metrics.jsonl 512 MiB, others 64 MiB); nullopt when it does not exist,
// DataError naming it when it is a FIFO, device, folder, a link out of the folder, or too large.
std::optional<std::string> run_file(const std::filesystem::path& folder, const std::string& name);

// Whether folder/name exists, after the same checks (HDF5 files, which the HDF5 library opens itself; 64 GiB).
bool run_array_file(const std::filesystem::path& folder, const std::string& name);

// config.yaml of a run folder, read as run_file reads.
config::Node run_config(const std::filesystem::path& folder);

// DataError / UserError naming the file when one is missing or unreadable.
RunFolder load_run_folder(const std::filesystem::path& folder);

// Whether a run folder holds a result: finished (summary.json says finished or early_stopped) and not being
// written. A run still training, paused, killed or crashed is not one, and `why` says which.
struct RunProgress {
  bool finished = false;
  std::string why;  // "" when finished, else e.g. "being written by pid 12 on host", "no summary.json"
};
RunProgress run_progress(const std::filesystem::path& folder);

}  // namespace loci::analysis
