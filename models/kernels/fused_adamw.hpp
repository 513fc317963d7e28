#pragma once
// torch::optim::AdamW with its update done in one pass over each parameter.
//
// LibTorch's AdamW runs about nine ATen operations per parameter tensor and step (decay, two moment updates, a
// square root and a division into fresh tensors, an add, the update), each with its dispatch and a pass over memory;
// on the masked-regression model of Experiments 2 and 3 (57 small tensors) that is some 500 operations a step.
// Here one loop per tensor reads the parameter, its gradient and both moments once and writes them back, with the
// same arithmetic in the same order, so the values agree with AdamW's to float32 rounding. The state is AdamW's own
// (AdamWParamState under the same keys), so checkpoints are interchangeable. Tensors that are not contiguous float32
// CPU tensors, and amsgrad, take LibTorch's own path. Elementwise: the bytes do not depend on the thread count.

#include <torch/optim/adamw.h>

namespace loci::models {

class FusedAdamW : public torch::optim::AdamW {
 public:
  using torch::optim::AdamW::AdamW;
  torch::Tensor step(LossClosure closure = nullptr) override;
};

}  // namespace loci::models
