// Timing helpers shared by the model benches: wall and process-CPU seconds per call, best of several rounds.
#pragma once

#include <chrono>
#include <ctime>
#include <sstream>
#include <string>
#include <vector>

namespace loci::bench {

inline double cpu_seconds() {
  timespec t{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
}

// Wall and process-CPU seconds per call. On a shared machine the CPU time of a 1-thread run is the steadier figure.
struct Timing {
  double wall = 0, cpu = 0;
};

// Best of `reps` rounds of `calls` calls (after `warmup` calls): on a shared machine the fastest round is the one
// least disturbed by other processes.
template <class F>
Timing time_per_call(F&& f, int warmup, int calls, int reps = 1) {
  using Clock = std::chrono::steady_clock;
  for (int i = 0; i < warmup; ++i) f();
  Timing best{1e300, 1e300};
  for (int r = 0; r < reps; ++r) {
    const auto start = Clock::now();
    const double cpu_start = cpu_seconds();
    for (int i = 0; i < calls; ++i) f();
    const Timing t{std::chrono::duration<double>(Clock::now() - start).count() / calls,
                   (cpu_seconds() - cpu_start) / calls};
    if (t.wall < best.wall) best = t;
  }
  return best;
}

// "1,2" -> {1, 2}: the --threads argument of the benches.
inline std::vector<int> thread_list(const std::string& text) {
  std::vector<int> out;
  std::stringstream list(text);
  for (std::string t; std::getline(list, t, ',');) out.push_back(std::stoi(t));
  return out;
}

}  // namespace loci::bench
