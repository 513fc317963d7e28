// Everything one training run holds while it goes: built step by step by TorchTrainer::train (torch_trainer.cpp),
// then advanced epoch by epoch (training_loop.hpp) and written out (run_folder.hpp).
#pragma once

#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "checkpoint_state.hpp"
#include "core/config/identity.hpp"
#include "core/config/node.hpp"
#include "data_feed.hpp"
#include "data_parallel.hpp"
#include "datasets/folder_lock.hpp"
#include "datasets/reader.hpp"
#include "evaluate.hpp"
#include "models/micro_batches.hpp"
#include "models/model.hpp"
#include "train_options.hpp"

namespace loci::torch_trainer {

// The process a run trains in: its device, threads' partners (the other ranks) and what it says on the terminal.
struct Process {
  torch::Device device = torch::kCPU;
  std::unique_ptr<DataParallel> dp;
  int rank = 0, ranks = 1;
  bool lead = true;             // the one rank that evaluates and writes; the run folder must be shared by all
  bool progress_shown = false;  // the bar (train.progress, on a terminal or as lines in a log)
  bool say = true;              // one line per evaluation: everywhere but under -q
  std::string started_at;       // this invocation's start, for provenance.json
};

// The run folder: where it is, the claim on it, and what it records of the run's settings.
struct RunFolder {
  std::filesystem::path run, last, last_source;  // last_source: the checkpoint `--from` names
  std::unique_ptr<datasets::FolderLock> claim;
  config::Node recorded;      // config.yaml: resolved, with the effective init and absolute paths
  config::Identity identity;  // identity.json's
};

// The dataset the run reads, and what the run takes from it.
struct Data {
  std::optional<datasets::Dataset> ds;
  FeedPlan plan;
  torch::Tensor positions;
  std::vector<std::string> eval_splits;
  std::string attention_split;
  TokenMeans means;  // masked regression: the training split's means, the baselines of every evaluation
};

// The model being trained and what steps it.
struct Learner {
  models::ModelOptions mopt;
  models::Model model{nullptr};
  std::unique_ptr<torch::optim::Optimizer> optimizer;
  std::unique_ptr<models::MicroBatches> micro;
};

// Where the run is in its training, and how far it goes.
struct RunSchedule {
  RunState state;
  std::int64_t per_epoch = 0, total_steps = 0, total_epochs = 0;
};

// A run's session as the parts each step owns: set_up_process fills `process`, claim_run_folder and check_identity
// `folder`, open_data `data`, build_model `learner`, restore and plan_epochs `schedule`.
struct Session {
  TrainOptions opt;
  Process process;
  RunFolder folder;
  Data data;
  Learner learner;
  RunSchedule schedule;
};

// bf16 whose products run in the fused layers (train.bf16_products: fused), not under autocast.
inline bool fused_products(const TrainOptions& o) {
  return o.precision == models::Precision::bf16 && o.bf16_products == models::Bf16Products::fused;
}

}  // namespace loci::torch_trainer
