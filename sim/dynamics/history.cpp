#include "sim/dynamics/history.hpp"

#include <algorithm>

namespace loci::sim::dynamics {

StateHistory::StateHistory(std::size_t max_lag, std::size_t size)
    : depth_(max_lag + 1), size_(size), ring_(depth_ * size) {}

void StateHistory::reset(const double* x) {
  for (std::size_t s = 0; s < depth_; ++s) std::copy_n(x, size_, ring_.data() + s * size_);
  newest_ = 0;
}

void StateHistory::push(const double* x) {
  newest_ = (newest_ + 1) % depth_;
  std::copy_n(x, size_, ring_.data() + newest_ * size_);
}

}  // namespace loci::sim::dynamics
