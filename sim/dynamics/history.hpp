// The recent past of a batch's state, for couplings with conduction delays. Holds the accepted states of the last
// depth() steps in a ring: at(0) is the current state, at(k) the state k steps before it. Before the first step
// the past is taken to be the initial state (the usual constant history of a delay equation).
#pragma once

#include <cstddef>

#include "sim/dynamics/buffers.hpp"

namespace loci::sim::dynamics {

class StateHistory {
 public:
  // Room for lags 0..max_lag of a state of `size` values.
  StateHistory(std::size_t max_lag, std::size_t size);

  // Every slot becomes `x`: the constant past before the first step.
  void reset(const double* x);
  // `x` becomes at(0); what was at(k) becomes at(k + 1).
  void push(const double* x);

  // The state `lag` steps ago (0 <= lag <= max_lag()).
  const double* at(std::size_t lag) const { return ring_.data() + ((newest_ + depth_ - lag) % depth_) * size_; }

  std::size_t max_lag() const { return depth_ - 1; }
  std::size_t size() const { return size_; }

 private:
  std::size_t depth_, size_, newest_ = 0;
  AlignedVector<double> ring_;
};

}  // namespace loci::sim::dynamics
