// Internal: one background thread that consumes jobs from a short queue. The producer blocks while `capacity` jobs
// wait, which bounds memory; the first exception the worker throws stops it and is rethrown to the producer.
#pragma once

#include <condition_variable>
#include <deque>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>

#include <boost/core/noncopyable.hpp>

namespace loci::datasets::detail {

template <class Job>
class Worker : boost::noncopyable {
 public:
  Worker(std::size_t capacity, std::function<void(Job&)> work)
      : capacity_(capacity), work_(std::move(work)), thread_([this] { run(); }) {}
  ~Worker() {
    stop(true);
    if (thread_.joinable()) thread_.join();
  }

  void push(Job job) {
    std::unique_lock<std::mutex> lock(mutex_);
    changed_.wait(lock, [&] { return queue_.size() < capacity_ || error_; });
    if (error_) std::rethrow_exception(error_);
    queue_.push_back(std::move(job));
    changed_.notify_all();
  }

  // Waits for every queued job, then rethrows the worker's exception if it had one.
  void close() {
    stop(false);
    if (thread_.joinable()) thread_.join();
    if (error_) std::rethrow_exception(error_);
  }

 private:
  void stop(bool abandon) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (abandon) queue_.clear();
    closed_ = true;
    changed_.notify_all();
  }

  void run() {
    for (;;) {
      Job job;
      {
        std::unique_lock<std::mutex> lock(mutex_);
        changed_.wait(lock, [&] { return !queue_.empty() || closed_; });
        if (queue_.empty()) return;
        job = std::move(queue_.front());
        queue_.pop_front();
        changed_.notify_all();
      }
      try {
        work_(job);
      } catch (...) {
        std::lock_guard<std::mutex> lock(mutex_);
        error_ = std::current_exception();
        queue_.clear();
        changed_.notify_all();
        return;
      }
    }
  }

  std::size_t capacity_;
  std::function<void(Job&)> work_;
  std::mutex mutex_;
  std::condition_variable changed_;
  std::deque<Job> queue_;
  bool closed_ = false;
  std::exception_ptr error_;
  std::thread thread_;  // last: starts after everything it uses exists
};

}  // namespace loci::datasets::detail
