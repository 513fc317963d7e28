// A training step's gradient computed as the sum of the gradients of a fixed number of parts of the batch, the parts
// run side by side on several threads, each part on one thread. On small models this beats splitting every matrix
// product over the threads: each part is a whole forward and backward with no barrier inside, and the threads meet
// once per step. It also makes the bytes independent of the thread count, which splitting operations does not (ATen
// sums LayerNorm's parameter gradients per thread, for one): every part is computed single-threaded wherever it runs,
// the parts' gradients are added in part order, and each part draws its dropout from its own generator
// (models/dropout.hpp). The bytes depend on `parts`, never on `threads`.
#pragma once

#include "core/option.hpp"
#include "models/kernels/single_thread_scope.hpp"

#include <torch/torch.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <utility>
#include <vector>

#include <boost/core/noncopyable.hpp>

namespace loci::models {

struct MicroBatchOptions {
  MicroBatchOptions(int parts = 1, int threads = 1) : parts_(parts), threads_(threads) {}
  // The number of parts each batch is cut into; with a loss weighted by each part's share of the batch the summed
  // gradient is the whole batch's.
  LOCI_OPTION(int, parts);
  // Threads for the parts: min(parts, threads) workers, one thread each (more threads than parts stay idle).
  LOCI_OPTION(int, threads);
};

class MicroBatches : boost::noncopyable {
 public:
  explicit MicroBatches(const MicroBatchOptions& options);
  ~MicroBatches();

  const MicroBatchOptions& options() const { return options_; }

  // Samples [begin, end) of part `part` of a batch of n: contiguous, sizes differing by at most one.
  static std::pair<std::int64_t, std::int64_t> range(int part, int parts, std::int64_t n);

  // Re-seeds part p's dropout generator with seed_of(p).
  void reseed(const std::function<std::uint64_t(int part)>& seed_of);

  // Calls fn(p) for every part p, concurrently on the workers, each part single-threaded and drawing dropout from its
  // own generator. An exception from any part reaches the caller once every part has stopped.
  void run(const std::function<void(int part)>& fn);

  // Calls loss_of(p) for every part (on the workers; each part's dropout from its own generator), differentiates
  // each returned scalar and sets every parameter's gradient to the sum of the parts' gradients, added in part order.
  // An undefined loss (an empty part) contributes nothing. Returns the parts' loss values. An exception from any part
  // reaches the caller once every part has stopped; the gradients are then unchanged.
  std::vector<double> backward(const std::vector<torch::Tensor>& parameters,
                               const std::function<torch::Tensor(int part)>& loss_of);

 private:
  struct Workers;
  MicroBatchOptions options_;
  std::vector<at::Generator> generators_;
  std::unique_ptr<Workers> workers_;  // null when one thread runs every part
};

}  // namespace loci::models
