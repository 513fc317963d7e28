// How many bytes this process may still allocate: the kernel's MemAvailable, and no more than its address-space
// and data limits (ulimit -v / -d) allow. Readers and builders compare what an input would cost against it before
// allocating, so that an input too large for the machine is a one-line error naming it, not an OOM kill or a crash
// inside a failed allocation.
#pragma once

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <string>

namespace loci::cpu {

inline std::uint64_t memory_available() {
  std::uint64_t bytes = 0;
  std::ifstream meminfo("/proc/meminfo");
  for (std::string key; meminfo >> key;) {
    std::uint64_t kib = 0;
    meminfo >> kib;
    meminfo.ignore(64, '\n');
    if (key == "MemAvailable:") {
      bytes = kib * 1024;
      break;
    }
  }
  if (bytes == 0)
    bytes = static_cast<std::uint64_t>(sysconf(_SC_PHYS_PAGES)) * static_cast<std::uint64_t>(sysconf(_SC_PAGESIZE));
  // The address-space limit counts what is mapped already (LibTorch alone maps over a GiB).
  std::uint64_t mapped_pages = 0;
  std::ifstream("/proc/self/statm") >> mapped_pages;
  const std::uint64_t mapped = mapped_pages * static_cast<std::uint64_t>(sysconf(_SC_PAGESIZE));
  for (int resource : {RLIMIT_AS, RLIMIT_DATA}) {
    rlimit limit{};
    if (getrlimit(resource, &limit) != 0 || limit.rlim_cur == RLIM_INFINITY) continue;
    const std::uint64_t left = resource == RLIMIT_AS ? (limit.rlim_cur > mapped ? limit.rlim_cur - mapped : 0)
                                                     : static_cast<std::uint64_t>(limit.rlim_cur);
    bytes = std::min(bytes, left);
  }
  return bytes;
}

inline std::string gib_text(double bytes) {
  char text[48];
  const double gib = bytes / (1024.0 * 1024.0 * 1024.0);
  // Past a million GiB a fixed point only overflows the buffer into digits nobody reads.
  std::snprintf(text, sizeof text, gib < 1e6 ? "%.1f GiB" : "%.2g GiB", gib);
  return text;
}

}  // namespace loci::cpu
