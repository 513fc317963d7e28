// A progress report for long loops: on a terminal, one redrawn line with a bar, the count, the rate and the time
// left; in a log (stderr not a terminal), a plain line every few seconds. advance() may be called from any thread.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <mutex>
#include <string>

#include "core/option.hpp"

#include <boost/core/noncopyable.hpp>

namespace loci::datasets {

struct ProgressOptions {
  ProgressOptions(std::string label, std::int64_t total) : label_(std::move(label)), total_(total) {}
  LOCI_OPTION(std::string, label);
  LOCI_OPTION(std::int64_t, total);
  LOCI_OPTION(std::string, unit) = "samples";
  LOCI_OPTION(bool, enabled) = true;
  LOCI_OPTION(std::FILE*, stream) = stderr;
  // Seconds between reports; 0 picks 0.2 on a terminal and 5 in a log.
  LOCI_OPTION(double, interval) = 0.0;
};

class Progress : boost::noncopyable {
 public:
  explicit Progress(ProgressOptions options);
  ~Progress();

  void advance(std::int64_t n = 1);
  // Text shown after the rate and ETA from the next report on (a trainer's running loss and accuracy).
  void set_status(std::string status);
  // Prints the final report once; later calls do nothing. The destructor calls it.
  void finish();

  std::int64_t done() const { return done_.load(); }

 private:
  void report(bool final);
  using Clock = std::chrono::steady_clock;

  ProgressOptions options_;
  bool terminal_ = false;
  Clock::time_point start_;
  std::int64_t interval_ns_ = 0;
  std::atomic<std::int64_t> done_{0};
  std::atomic<std::int64_t> next_report_ns_{0};
  std::mutex mutex_;
  bool finished_ = false;
  std::string status_;  // guarded by mutex_
};

// "1:02:03", "4:05", "0:07"
std::string format_duration(double seconds);

}  // namespace loci::datasets
