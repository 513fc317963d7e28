#include "models/allocator.hpp"

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace loci::models {

bool tune_allocator(const AllocatorTuning& tuning) {
#if defined(__GLIBC__)
  // Setting any of these also turns off glibc's sliding mmap threshold, which is what makes the behaviour steady.
  const bool ok = mallopt(M_MMAP_THRESHOLD, static_cast<int>(tuning.mmap_threshold)) == 1 &&
                  mallopt(M_TRIM_THRESHOLD, static_cast<int>(tuning.trim_threshold)) == 1 &&
                  mallopt(M_TOP_PAD, static_cast<int>(tuning.top_pad)) == 1;
  return ok;
#else
  (void)tuning;
  return false;
#endif
}

}  // namespace loci::models
