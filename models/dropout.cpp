#include "models/dropout.hpp"

namespace loci::models {
namespace {

thread_local at::Generator* current_generator = nullptr;

}  // namespace

torch::Tensor dropout(const torch::Tensor& x, double p, bool active) {
  if (!active || p <= 0.0) return x;
  if (current_generator == nullptr) return torch::dropout(x, p, true);
  if (p >= 1.0) return x * 0.0;
  // The same arithmetic as torch::dropout (keep with probability 1 - p, scale the kept by 1 / (1 - p)).
  auto keep = at::empty_like(x).bernoulli_(1.0 - p, *current_generator).div_(1.0 - p);
  return x * keep;
}

DropoutGeneratorScope::DropoutGeneratorScope(at::Generator* generator) : previous_(current_generator) {
  current_generator = generator;
}

DropoutGeneratorScope::~DropoutGeneratorScope() { current_generator = previous_; }

}  // namespace loci::models
