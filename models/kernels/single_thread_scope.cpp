#include "models/kernels/single_thread_scope.hpp"

#include <ATen/Parallel.h>
#include <omp.h>

namespace loci::models {

SingleThreadScope::SingleThreadScope() {
  // LibTorch sets a thread's OpenMP thread count on its first parallel operation; let it, then override it.
  at::internal::lazy_init_num_threads();
  previous_ = omp_get_max_threads();
  omp_set_num_threads(1);  // OpenBLAS follows the same per-thread setting
}

SingleThreadScope::~SingleThreadScope() { omp_set_num_threads(previous_); }

}  // namespace loci::models
