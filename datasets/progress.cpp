#include "datasets/progress.hpp"

#include <unistd.h>

#include <algorithm>
#include <cmath>

namespace loci::datasets {

std::string format_duration(double seconds) {
  if (!std::isfinite(seconds) || seconds < 0) return "?";
  const auto s = static_cast<long long>(seconds + 0.5);
  char buf[32];
  if (s >= 3600)
    std::snprintf(buf, sizeof buf, "%lld:%02lld:%02lld", s / 3600, (s / 60) % 60, s % 60);
  else
    std::snprintf(buf, sizeof buf, "%lld:%02lld", s / 60, s % 60);
  return buf;
}

Progress::Progress(ProgressOptions options) : options_(std::move(options)), start_(Clock::now()) {
  terminal_ = options_.stream() && ::isatty(::fileno(options_.stream()));
  const double interval = options_.interval() > 0 ? options_.interval() : (terminal_ ? 0.2 : 5.0);
  interval_ns_ = static_cast<std::int64_t>(interval * 1e9);
  next_report_ns_ = interval_ns_;
}

Progress::~Progress() { finish(); }

void Progress::advance(std::int64_t n) {
  done_ += n;
  if (!options_.enabled() || !options_.stream()) return;
  const std::int64_t now = std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - start_).count();
  std::int64_t due = next_report_ns_.load();
  // One thread wins the right to report; the others go back to work at once.
  if (now < due || !next_report_ns_.compare_exchange_strong(due, now + interval_ns_)) return;
  std::unique_lock<std::mutex> lock(mutex_, std::try_to_lock);
  if (lock.owns_lock() && !finished_) report(false);
}

void Progress::set_status(std::string status) {
  std::lock_guard<std::mutex> lock(mutex_);
  status_ = std::move(status);
}

void Progress::finish() {
  std::lock_guard<std::mutex> lock(mutex_);
  if (finished_) return;
  finished_ = true;
  if (options_.enabled() && options_.stream()) report(true);
}

void Progress::report(bool final) {
  const double elapsed = std::chrono::duration<double>(Clock::now() - start_).count();
  const std::int64_t done = done_.load();
  const std::int64_t total = options_.total();
  const double rate = elapsed > 0 ? static_cast<double>(done) / elapsed : 0.0;
  const double eta = rate > 0 ? static_cast<double>(total - done) / rate : NAN;
  const double fraction =
      total > 0 ? std::clamp(static_cast<double>(done) / static_cast<double>(total), 0.0, 1.0) : 1.0;
  std::FILE* out = options_.stream();
  const char* unit = options_.unit().c_str();
  if (terminal_) {
    constexpr int width = 28;
    const int filled = static_cast<int>(fraction * width);
    std::string bar(static_cast<std::size_t>(filled), '#');
    bar.resize(width, '.');
    std::fprintf(out, "\r%s [%s] %lld/%lld %s  %.1f/s  %s %s%s%s\033[K%s", options_.label().c_str(), bar.c_str(),
                 static_cast<long long>(done), static_cast<long long>(total), unit, rate, final ? "took" : "ETA",
                 format_duration(final ? elapsed : eta).c_str(), status_.empty() ? "" : "  ", status_.c_str(),
                 final ? "\n" : "");
  } else if (final) {
    std::fprintf(out, "%s: %lld/%lld %s in %s (%.1f/s)%s%s\n", options_.label().c_str(), static_cast<long long>(done),
                 static_cast<long long>(total), unit, format_duration(elapsed).c_str(), rate,
                 status_.empty() ? "" : ", ", status_.c_str());
  } else {
    std::fprintf(out, "%s: %lld/%lld %s (%.0f%%), %.1f/s, ETA %s%s%s\n", options_.label().c_str(),
                 static_cast<long long>(done), static_cast<long long>(total), unit, 100.0 * fraction, rate,
                 format_duration(eta).c_str(), status_.empty() ? "" : ", ", status_.c_str());
  }
  std::fflush(out);
}

}  // namespace loci::datasets
