#include "sim/dynamics/buffers.hpp"

#include <sys/mman.h>

#include <cstdint>

namespace loci::sim::dynamics {

namespace {
constexpr std::size_t kHugePage = std::size_t{1} << 21;
}

HugePageArena::HugePageArena(std::size_t bytes) : size_((bytes + kHugePage - 1) / kHugePage * kHugePage) {
  if (size_ == 0) return;
  // mmap aligns to 4 KiB only and huge pages need 2 MiB-aligned ranges: map one huge page more, unmap the ends.
  const std::size_t mapped = size_ + kHugePage;
  void* p = mmap(nullptr, mapped, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) throw std::bad_alloc();
  char* start = static_cast<char*>(p);
  char* aligned = start + (kHugePage - reinterpret_cast<std::uintptr_t>(start) % kHugePage) % kHugePage;
  if (aligned > start) munmap(start, static_cast<std::size_t>(aligned - start));
  const std::size_t tail = mapped - static_cast<std::size_t>(aligned - start) - size_;
  if (tail > 0) munmap(aligned + size_, tail);
  base_ = aligned;
#ifdef MADV_HUGEPAGE
  madvise(base_, size_, MADV_HUGEPAGE);  // a hint: failure (no THP) leaves ordinary pages
#endif
}

HugePageArena::~HugePageArena() {
  if (base_) munmap(base_, size_);
}

void* HugePageArena::take(std::size_t bytes) {
  const std::size_t start = (used_ + 63) / 64 * 64;
  if (start > size_ || bytes > size_ - start) return nullptr;
  used_ = start + bytes;
  return base_ + start;
}

}  // namespace loci::sim::dynamics
