// Dropout that draws from the generator of the micro-batch part this thread is computing (models/micro_batches.hpp),
// so that parts computed side by side on several threads draw exactly what they would draw one after another.
// Without such a generator it is torch::dropout on LibTorch's default generator.
#pragma once

#include <torch/torch.h>

#include <boost/core/noncopyable.hpp>

namespace loci::models {

torch::Tensor dropout(const torch::Tensor& x, double p, bool active);

// While alive, dropout on this thread draws from `generator` (nullptr: the default generator).
class DropoutGeneratorScope : boost::noncopyable {
 public:
  explicit DropoutGeneratorScope(at::Generator* generator);
  ~DropoutGeneratorScope();

 private:
  at::Generator* previous_;
};

}  // namespace loci::models
