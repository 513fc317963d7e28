// Before a model is built: what training it would take in memory (parameters, their gradients and AdamW's two
// moments; each block's activations for one batch), against what this process may allocate. Too much is a
// UserError naming the keys that decide it, where building would end in an OOM kill, a crash inside the failed
// allocation's backtrace, or minutes of swapping.
#pragma once

#include <cstdint>

#include "core/config/node.hpp"
#include "data_feed.hpp"
#include "train_options.hpp"

namespace loci::torch_trainer {

struct TrainingMemory {
  double parameters = 0;  // count
  double bytes = 0;       // parameters x 16 (weights, gradients, two moments) + one batch's activations
};

TrainingMemory training_memory(const TrainOptions& opt, const FeedPlan& plan, std::int64_t train_samples);

// UserError at model.d_model's position when training_memory exceeds memory_available().
void check_training_memory(const TrainOptions& opt, const FeedPlan& plan, std::int64_t train_samples);

}  // namespace loci::torch_trainer
