#pragma once
// One thread for this thread's LibTorch and OpenBLAS work: what every chunk of the fused kernels runs under, and
// what the micro-batches' workers and the trainer's reductions use so that their bytes do not depend on the thread
// count.

#include <boost/core/noncopyable.hpp>

namespace loci::models {

// While alive, this thread's LibTorch and OpenBLAS work runs on this thread alone. For reductions whose bytes must not
// depend on the thread count (a gradient norm for clipping, say).
class SingleThreadScope : boost::noncopyable {
 public:
  SingleThreadScope();
  ~SingleThreadScope();

 private:
  int previous_ = 1;
};

}  // namespace loci::models
