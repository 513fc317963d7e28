#include "memory_check.hpp"

#include <algorithm>
#include <string>

#include "core/config/fail_at.hpp"
#include "core/error.hpp"
#include "cpu/memory_available.hpp"

namespace loci::torch_trainer {

TrainingMemory training_memory(const TrainOptions& opt, const FeedPlan& plan, std::int64_t train_samples) {
  const auto& e = opt.model.encoder();
  // In double: the point is to catch sizes whose products overflow 64-bit integers as well.
  const double d = static_cast<double>(e.d_model()), blocks = static_cast<double>(e.blocks());
  const double hidden = e.mlp_ratio() * d, heads = static_cast<double>(e.heads());
  const double tokens = static_cast<double>(plan.tokens);
  const double outputs = static_cast<double>(std::max<std::int64_t>(plan.classes, plan.channels));
  TrainingMemory m;
  // Per block: Q, K, V and output projections, the MLP's two layers, biases and norms; then the input embedding,
  // a [T, d] PE and the head.
  m.parameters = blocks * (4 * d * d + 2 * d * hidden + 9 * d + hidden) +
                 d * (static_cast<double>(plan.channels) + tokens + outputs + 2);
  // Each sample of a batch keeps, per block, its projections and MLP activations and each head's attention map.
  const double batch = static_cast<double>(std::max<std::int64_t>(1, std::min(opt.batch_size, train_samples)));
  const double per_sample = blocks * (tokens * (12 * d + 3 * hidden) + 3 * heads * tokens * tokens);
  m.bytes = 16 * m.parameters + 4 * batch * per_sample;
  return m;
}

void check_training_memory(const TrainOptions& opt, const FeedPlan& plan, std::int64_t train_samples) {
  const TrainingMemory m = training_memory(opt, plan, train_samples);
  const double available = static_cast<double>(cpu::memory_available());
  if (m.bytes <= available) return;
  const auto& e = opt.model.encoder();
  char params[32];
  std::snprintf(params, sizeof params, "%.3g", m.parameters);
  char ratio[32];
  std::snprintf(ratio, sizeof ratio, "%g", e.mlp_ratio());
  opt.marks.fail("model.d_model",
                 "model.d_model " + std::to_string(e.d_model()) + ", model.mlp_ratio " + ratio + ", model.blocks " +
                     std::to_string(e.blocks()) + " and train.batch_size " + std::to_string(opt.batch_size) +
                     " need about " + cpu::gib_text(m.bytes) + " to train (" + params + " parameters), more than the " +
                     cpu::gib_text(available) + " this process may use; make the model or the batch smaller");
}

}  // namespace loci::torch_trainer
