#include "models/micro_batches.hpp"

#include "models/dropout.hpp"

#include <ATen/Parallel.h>

#include <condition_variable>
#include <exception>
#include <mutex>
#include <thread>

namespace loci::models {

// Threads that live as long as the MicroBatches: a step wakes them all, each computes its parts, the caller waits.
struct MicroBatches::Workers {
  std::mutex mutex;
  std::condition_variable wake, done;
  std::uint64_t generation = 0;  // bumped once per step
  int running = 0;
  bool quit = false;
  std::function<void(int worker)> job;
  std::vector<std::thread> threads;

  explicit Workers(int count) {
    for (int w = 0; w < count; ++w) threads.emplace_back([this, w] { loop(w); });
  }

  ~Workers() {
    {
      std::lock_guard<std::mutex> lock(mutex);
      quit = true;
    }
    wake.notify_all();
    for (auto& t : threads) t.join();
  }

  void loop(int w) {
    const SingleThreadScope one;
    std::uint64_t seen = 0;
    for (;;) {
      std::function<void(int)>* work = nullptr;
      {
        std::unique_lock<std::mutex> lock(mutex);
        wake.wait(lock, [&] { return quit || generation != seen; });
        if (quit) return;
        seen = generation;
        work = &job;
      }
      (*work)(w);
      std::lock_guard<std::mutex> lock(mutex);
      if (--running == 0) done.notify_one();
    }
  }

  void run(std::function<void(int)> f) {
    std::unique_lock<std::mutex> lock(mutex);
    job = std::move(f);
    running = static_cast<int>(threads.size());
    ++generation;
    wake.notify_all();
    done.wait(lock, [&] { return running == 0; });
  }
};

MicroBatches::MicroBatches(const MicroBatchOptions& options) : options_(options) {
  if (options.parts() < 1) throw std::invalid_argument("micro-batches: parts must be at least 1");
  if (options.threads() < 1) throw std::invalid_argument("micro-batches: threads must be at least 1");
  for (int p = 0; p < options.parts(); ++p) generators_.push_back(at::detail::createCPUGenerator(0));
  const int workers = std::min(options.parts(), options.threads());
  if (workers > 1) workers_ = std::make_unique<Workers>(workers);
}

MicroBatches::~MicroBatches() = default;

std::pair<std::int64_t, std::int64_t> MicroBatches::range(int part, int parts, std::int64_t n) {
  return {n * part / parts, n * (part + 1) / parts};
}

void MicroBatches::reseed(const std::function<std::uint64_t(int)>& seed_of) {
  for (int p = 0; p < options_.parts(); ++p) generators_[static_cast<std::size_t>(p)].set_current_seed(seed_of(p));
}

void MicroBatches::run(const std::function<void(int)>& fn) {
  const int parts = options_.parts();
  std::vector<std::exception_ptr> errors(static_cast<std::size_t>(parts));
  auto one_part = [&](int p) {
    try {
      const DropoutGeneratorScope scope(&generators_[static_cast<std::size_t>(p)]);
      fn(p);
    } catch (...) {
      errors[static_cast<std::size_t>(p)] = std::current_exception();
    }
  };
  if (workers_) {
    const int count = static_cast<int>(workers_->threads.size());
    workers_->run([&](int w) {
      for (int p = w; p < parts; p += count) one_part(p);
    });
  } else {
    const SingleThreadScope one;
    for (int p = 0; p < parts; ++p) one_part(p);
  }
  for (const auto& e : errors)
    if (e) std::rethrow_exception(e);
}

std::vector<double> MicroBatches::backward(const std::vector<torch::Tensor>& parameters,
                                           const std::function<torch::Tensor(int)>& loss_of) {
  const int parts = options_.parts();
  std::vector<double> losses(static_cast<std::size_t>(parts), 0.0);
  std::vector<std::vector<torch::Tensor>> grads(static_cast<std::size_t>(parts));
  run([&](int p) {
    const torch::Tensor loss = loss_of(p);
    if (!loss.defined()) return;
    losses[static_cast<std::size_t>(p)] = loss.item<double>();
    grads[static_cast<std::size_t>(p)] = torch::autograd::grad({loss}, parameters, /*grad_outputs=*/{},
                                                               /*retain_graph=*/false, /*create_graph=*/false,
                                                               /*allow_unused=*/true);
  });

  const torch::NoGradGuard no_grad;
  for (std::size_t i = 0; i < parameters.size(); ++i) {
    torch::Tensor sum;
    for (const auto& g : grads) {
      if (g.empty() || !g[i].defined()) continue;
      sum = sum.defined() ? sum + g[i] : g[i];
    }
    torch::Tensor& slot = parameters[i].mutable_grad();
    if (!sum.defined()) {
      if (slot.defined()) slot.zero_();
    } else if (slot.defined() && slot.sizes() == sum.sizes()) {
      slot.copy_(sum);
    } else {
      slot =
          sum.is_view() ? sum.clone() : sum;  // autograd may return views; an optimizer's zero_grad detaches in place
    }
  }
  return losses;
}

}  // namespace loci::models
