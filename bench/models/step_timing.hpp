// Timing helpers shared by the model benches: wall and process-CPU seconds per call, best of several rounds.
#pragma once

#include <chrono>
#include <ctime>
#include <sstream>
#include <stdexcept>
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

// Hands each command-line argument to take(arg, next), where next() reads the argument's value; an argument that
// take() does not know (it returns false) is an error.
template <class Take>
void parse_arguments(int argc, char** argv, Take&& take) {
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    auto next = [&]() -> std::string {
      if (i + 1 >= argc) throw std::invalid_argument(arg + " needs a value");
      return argv[++i];
    };
    if (!take(arg, next)) throw std::invalid_argument("unknown argument " + arg);
  }
}

// The rounds a model bench times, with the flags that set them: --threads 1,2 --steps N --reps N --warmup N
// --parts N (what 0 means is the bench's own; negative is refused).
struct StepRounds {
  std::vector<int> threads{1, 2};
  int steps = 10, warmup = 3, reps = 5, parts = 0;

  // Takes one of the flags above (its value from next()); false for any other argument.
  template <class Next>
  bool parse_round(const std::string& arg, Next&& next) {
    if (arg == "--threads")
      threads = thread_list(next());
    else if (arg == "--steps")
      steps = std::stoi(next());
    else if (arg == "--reps")
      reps = std::stoi(next());
    else if (arg == "--warmup")
      warmup = std::stoi(next());
    else if (arg == "--parts")
      parts = std::stoi(next());
    else
      return false;
    if (parts < 0) throw std::invalid_argument("--parts must be >= 0");
    return true;
  }
};

}  // namespace loci::bench
