// Learning rate at a step: constant, or linear warmup then cosine decay to min_lr over the run.
#pragma once

#include <cmath>
#include <cstdint>
#include <string>

namespace loci::torch_trainer {

// train.schedule's choices (named in its declaration, train_options.cpp).
enum class Schedule { constant, warmup_cosine };

inline double learning_rate(Schedule schedule, double lr, double min_lr, std::int64_t warmup, std::int64_t step,
                            std::int64_t total_steps) {
  if (schedule == Schedule::constant) return lr;
  if (warmup > 0 && step < warmup) return lr * static_cast<double>(step + 1) / static_cast<double>(warmup);
  const double span = static_cast<double>(std::max<std::int64_t>(1, total_steps - warmup));
  const double t = std::min(1.0, static_cast<double>(step - warmup) / span);
  return min_lr + 0.5 * (lr - min_lr) * (1.0 + std::cos(M_PI * t));
}

}  // namespace loci::torch_trainer
