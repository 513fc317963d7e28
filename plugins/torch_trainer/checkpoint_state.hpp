// One checkpoint archive holds everything a run needs to continue bit for bit: model, optimizer, epoch, step,
// the early-stopping state, and the history behind metrics.csv and pe.h5. Every source of randomness is re-seeded
// from (seed, epoch) at each epoch start, so no generator state needs saving.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "core/config/identity.hpp"
#include "models/model.hpp"
#include "run_outputs.hpp"

namespace loci::torch_trainer {

struct RunState {
  std::int64_t epoch = 0;  // epochs finished
  std::int64_t step = 0;
  double seconds = 0;  // training time so far, across resumptions
  double best_loss = 1e300;
  std::int64_t evals_without_improvement = 0;
  double best_checkpoint_loss = 1e300;  // train.checkpoint.best: the loss of the evaluation kept in best.pt
  std::vector<MetricsRow> rows;
  std::vector<PeSnapshot> pe_history;
};

// Written under a temporary name and renamed, so a crash mid-save leaves the previous checkpoint intact. `run` is
// the run's lasting identity (run_identity.hpp: its keys less train.epochs), recorded so that the checkpoint
// cannot continue another run.
void save_checkpoint(const std::filesystem::path& file, models::Model& model, torch::optim::Optimizer& optimizer,
                     const RunState& state, const std::vector<std::string>& condition_names,
                     const config::FlatConfig& run);
// Checkpoints are written with datasets::write_checked and verified with datasets::verify_checked: LibTorch's
// archive checks no checksum of its tensors, so a damaged checkpoint would otherwise resume from wrong weights.

// UserError naming the file when it is unreadable, does not match its checksum record, does not fit the model,
// or records another run than `run` (a checkpoint from before identities were recorded carries none and is
// taken as it is).
// A key recorded on one side only (a key a later loci added) does not count, as in resuming (run_identity.hpp).
RunState load_checkpoint(const std::filesystem::path& file, models::Model& model, torch::optim::Optimizer& optimizer,
                         const config::FlatConfig& run);

}  // namespace loci::torch_trainer
