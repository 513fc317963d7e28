// Allocators for the simulation's buffers.
//
// CacheLineAllocator: state and draws aligned to 64 bytes. With 8 runs in lanes a node's values are one AVX-512
// register; at malloc's 16-byte alignment every such load and store would straddle two cache lines (measured: the
// sparse product takes 40% longer).
//
// ArenaAllocator: the recordings of one simulate() call carved from one block that the kernel may map in 2 MiB
// huge pages (HugePageArena), rather than one 4 KiB page per first touch. Where page faults are expensive (14-19 us
// per 4 KiB page measured in a virtual machine, against 0.13 ms per MB with huge pages) the faults were a third of
// the time of a benchmark call. One arena for all runs because a single recording (nodes x points floats) is often
// smaller than a huge page. Copies of a recording go to the ordinary heap; the arena lives until the last
// recording carved from it is gone.
#pragma once

#include <cstddef>
#include <memory>
#include <new>
#include <type_traits>
#include <utility>
#include <vector>

#include <boost/core/noncopyable.hpp>

namespace loci::sim::dynamics {

template <class T>
struct CacheLineAllocator {
  using value_type = T;
  static constexpr std::align_val_t alignment{64};

  CacheLineAllocator() = default;
  template <class U>
  CacheLineAllocator(const CacheLineAllocator<U>&) {}

  T* allocate(std::size_t n) { return static_cast<T*>(::operator new(n * sizeof(T), alignment)); }
  void deallocate(T* p, std::size_t) { ::operator delete(p, alignment); }

  template <class U>
  bool operator==(const CacheLineAllocator<U>&) const {
    return true;
  }
  template <class U>
  bool operator!=(const CacheLineAllocator<U>&) const {
    return false;
  }
};

template <class T>
using AlignedVector = std::vector<T, CacheLineAllocator<T>>;

// `bytes` (rounded up to whole 2 MiB pages), advised for transparent huge pages on Linux before the first touch;
// where the system has none it is an ordinary page-aligned mapping. Not thread-safe: carve before sharing.
class HugePageArena : boost::noncopyable {
 public:
  explicit HugePageArena(std::size_t bytes);
  ~HugePageArena();

  void* take(std::size_t bytes);  // the next 64-byte-aligned piece, or nullptr when it does not fit
  bool holds(const void* p) const { return p >= base_ && p < base_ + size_; }

 private:
  char* base_ = nullptr;
  std::size_t size_ = 0, used_ = 0;
};

template <class T>
struct ArenaAllocator {
  using value_type = T;
  using propagate_on_container_move_assignment = std::true_type;
  using propagate_on_container_swap = std::true_type;

  ArenaAllocator() = default;  // no arena: the heap
  explicit ArenaAllocator(std::shared_ptr<HugePageArena> a) : arena(std::move(a)) {}
  template <class U>
  ArenaAllocator(const ArenaAllocator<U>& other) : arena(other.arena) {}
  ArenaAllocator select_on_container_copy_construction() const { return {}; }

  T* allocate(std::size_t n) {
    if (arena)
      if (void* p = arena->take(n * sizeof(T))) return static_cast<T*>(p);
    return static_cast<T*>(::operator new(n * sizeof(T)));
  }
  void deallocate(T* p, std::size_t) {
    if (!arena || !arena->holds(p)) ::operator delete(p);
  }

  // resize() leaves elements default-initialised (for float: unwritten) instead of zeroing them: simulate() writes
  // every value anyway, and the first write then maps each page in the worker thread that owns the run, not in
  // a serial pass over all recordings beforehand.
  template <class U>
  void construct(U* p) noexcept {
    ::new (static_cast<void*>(p)) U;
  }
  template <class U, class... Args>
  void construct(U* p, Args&&... args) {
    ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
  }

  template <class U>
  bool operator==(const ArenaAllocator<U>& o) const {
    return arena == o.arena;
  }
  template <class U>
  bool operator!=(const ArenaAllocator<U>& o) const {
    return arena != o.arena;
  }

  std::shared_ptr<HugePageArena> arena;
};

}  // namespace loci::sim::dynamics
