// From stored batches to model inputs: which arrays a task reads, and how their bytes become tensors.
#pragma once

#include <string>
#include <vector>

#include <torch/torch.h>
#include <nlohmann/json.hpp>

#include "datasets/batch_stream.hpp"
#include "datasets/reader.hpp"
#include "train_options.hpp"

namespace loci::torch_trainer {

// What the trainer reads from a dataset for its task, decided once from the dataset's arrays.
struct FeedPlan {
  Task task = Task::classification;
  std::string input;         // [token, channel]
  std::string label;         // classification only
  std::string target_token;  // "" unless pooling is target or the objective dense
  std::string dense_label;   // the per-token class array of a dense objective ("" for readout)
  bool dense_blank = false;  // the dense loss counts only tokens whose symbol channels are all zero
  std::string condition;     // "" when the dataset has no `condition` (accuracy per condition then absent)
  std::vector<std::string> condition_names;
  std::int64_t tokens = 0, channels = 0, classes = 0;
  std::string train_split;
  std::int64_t train_samples = 0;  // train.data_fraction's share of the training split (0: all of it)

  std::vector<std::string> arrays() const;  // in the order Feed::from reads them
  // The stream of `split` as training and evaluation read it: the training split cut to its share.
  datasets::BatchStreamOptions stream_options(const std::string& split, std::int64_t batch_size) const;
};

// Checks the dataset against the options and decides the plan; a mismatch is a one-line UserError.
FeedPlan plan_feed(const datasets::Dataset& ds, const TrainOptions& opt);

// The task as resolved against the dataset (task.type auto, task.classes 0): summary.json's "task" (type, input,
// classes or null), so that readers of a run need no rules of the trainer's.
nlohmann::ordered_json task_record(const FeedPlan& plan);

struct Feed {
  torch::Tensor x;          // [B, T, C] float
  torch::Tensor label;      // [B] int64 (classification)
  torch::Tensor target;     // [B] int64 (pooling: target)
  torch::Tensor condition;  // [B] int64 when the plan has one
  torch::Tensor dense;      // [B, T] int64 classes of a dense objective
  torch::Tensor counted;    // [B, T] bool: the tokens the dense_blank loss counts (undefined: all)

  // UserError naming the sample when a label, target token or condition lies outside what the plan declares.
  static Feed from(const datasets::Batch& batch, const FeedPlan& plan, const datasets::BatchStream& stream);
};

void check_ranges(const Feed& f, const FeedPlan& plan, const datasets::Batch& batch,
                  const datasets::BatchStream& stream);

}  // namespace loci::torch_trainer
