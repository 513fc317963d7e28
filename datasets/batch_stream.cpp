#include "datasets/batch_stream.hpp"

#include <algorithm>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <exception>
#include <mutex>
#include <numeric>
#include <thread>

#include "datasets/error.hpp"
#include "datasets/format.hpp"
#include "sim/random/stream.hpp"

namespace loci::datasets {

namespace {

struct Unit {  // one HDF5 chunk: samples [begin, end) of the split
  std::int64_t begin, end;
};

}  // namespace

struct BatchStream::Impl {
  const Dataset& dataset;
  BatchStreamOptions o;
  std::vector<ArrayInfo> infos;
  std::vector<Unit> units;  // in this epoch's order
  std::uint64_t window_seed = 0;
  std::int64_t total = 0;

  std::mutex mutex;
  std::condition_variable changed;
  std::deque<Batch> ready;
  bool finished = false, stopping = false;
  std::exception_ptr error;
  std::thread thread;

  Impl(const Dataset& d, BatchStreamOptions opts) : dataset(d), o(std::move(opts)) {
    if (o.batch_size() <= 0) throw std::invalid_argument("batch stream: batch_size must be positive");
    if (o.ranks() < 1 || o.rank() < 0 || o.rank() >= o.ranks())
      throw std::invalid_argument("batch stream: rank must be in [0, ranks)");
    for (const auto& name : o.arrays()) {
      const ArrayInfo& a = dataset.array(name);
      if (!a.per_sample)
        throw DataError(dataset.path(), "array '" + name + "' is not per-sample; read it with read_dataset_array");
      infos.push_back(a);
    }
    total = dataset.samples(o.split());
    // Chunks start at every shard's first sample, so walk the shards, not the split as one run.
    const std::int64_t chunk = std::max<std::int64_t>(1, dataset.chunk_samples());
    for (const auto& s : dataset.index().shards) {
      if (s.split != o.split()) continue;
      for (std::int64_t b = 0; b < s.samples; b += chunk)
        units.push_back({s.first_sample + b, s.first_sample + std::min(s.samples, b + chunk)});
    }
    std::sort(units.begin(), units.end(), [](const Unit& a, const Unit& b) { return a.begin < b.begin; });
    if (o.limit() < 0) throw std::invalid_argument("batch stream: limit must be 0 (all) or positive");
    if (o.limit() > 0 && o.limit() < total) {
      // The split's first samples, whatever the shuffle: a smaller training set that every epoch draws from.
      units.erase(std::remove_if(units.begin(), units.end(), [&](const Unit& u) { return u.begin >= o.limit(); }),
                  units.end());
      for (auto& u : units) u.end = std::min(u.end, o.limit());
      total = o.limit();
    }
    if (o.shuffle()) {
      auto rng = sim::Rng::stream(o.seed(), "batch_stream", static_cast<std::uint64_t>(o.epoch()));
      window_seed = rng();
      rng.shuffle(units.begin(), units.end());
    }
  }

  std::int64_t windows() const {
    const std::int64_t w = std::max<std::int64_t>(1, o.window_chunks());
    return (static_cast<std::int64_t>(units.size()) + w - 1) / w;
  }

  std::pair<std::size_t, std::size_t> window_units(std::int64_t w) const {
    const auto per = static_cast<std::size_t>(std::max<std::int64_t>(1, o.window_chunks()));
    const std::size_t a = static_cast<std::size_t>(w) * per;
    return {a, std::min(units.size(), a + per)};
  }

  // Sample ids of window w in stored order, and the permutation of their positions this epoch uses.
  std::pair<std::vector<std::int64_t>, std::vector<std::size_t>> window_order(std::int64_t w) const {
    auto [a, b] = window_units(w);
    std::vector<std::int64_t> ids;
    for (std::size_t u = a; u < b; ++u)
      for (std::int64_t i = units[u].begin; i < units[u].end; ++i) ids.push_back(i);
    std::vector<std::size_t> perm(ids.size());
    std::iota(perm.begin(), perm.end(), std::size_t{0});
    if (o.shuffle())
      sim::Rng::stream(window_seed, "window", static_cast<std::uint64_t>(w)).shuffle(perm.begin(), perm.end());
    return {std::move(ids), std::move(perm)};
  }

  // Samples of the epoch that go into batches: drop_last leaves out a final partial batch.
  std::int64_t used() const { return o.drop_last() ? total / o.batch_size() * o.batch_size() : total; }

  // This rank's positions [lo, hi) within global batch b, and the global batch's size.
  struct Part {
    std::int64_t lo, hi, size;
  };
  Part part(std::int64_t b) const {
    const std::int64_t size = std::min(o.batch_size(), used() - b * o.batch_size());
    return {size * o.rank() / o.ranks(), size * (o.rank() + 1) / o.ranks(), size};
  }
  bool mine(std::int64_t g) const {
    const Part p = part(g / o.batch_size());
    const std::int64_t pos = g % o.batch_size();
    return pos >= p.lo && pos < p.hi;
  }

  Batch empty_batch() const {
    Batch b;
    // No batch holds more than the split: a batch_size beyond it is one batch of everything, not a huge buffer.
    const auto room = static_cast<std::size_t>(std::max<std::int64_t>(1, std::min(o.batch_size(), total)));
    b.arrays.resize(infos.size());
    for (std::size_t a = 0; a < infos.size(); ++a) b.arrays[a].reserve(infos[a].bytes() * room);
    b.sample_ids.reserve(room);
    return b;
  }

  // false when the consumer has gone away
  bool deliver(Batch&& b) {
    std::unique_lock<std::mutex> lock(mutex);
    changed.wait(lock, [&] {
      return stopping || static_cast<std::int64_t>(ready.size()) < std::max<std::int64_t>(1, o.prefetch_batches());
    });
    if (stopping) return false;
    ready.push_back(std::move(b));
    changed.notify_all();
    return true;
  }

  void produce() {
    Batch batch = empty_batch();
    std::vector<std::vector<std::uint8_t>> window(infos.size());
    std::int64_t g = 0;  // position in the epoch's order
    const std::int64_t end = used();
    for (std::int64_t w = 0; w < windows() && g < end; ++w) {
      auto [ids, perm] = window_order(w);
      auto [a, b] = window_units(w);
      for (std::size_t k = 0; k < infos.size(); ++k) {
        const std::size_t per = infos[k].bytes();
        window[k].resize(ids.size() * per);
        std::size_t offset = 0;
        for (std::size_t u = a; u < b; ++u) {
          const std::int64_t n = units[u].end - units[u].begin;
          dataset.read(o.split(), infos[k].name, units[u].begin, n, window[k].data() + offset, infos[k].dtype);
          offset += static_cast<std::size_t>(n) * per;
        }
      }
      for (std::size_t p : perm) {
        if (g >= end) break;
        if (mine(g)) {
          for (std::size_t k = 0; k < infos.size(); ++k) {
            const std::size_t per = infos[k].bytes();
            const std::uint8_t* src = window[k].data() + p * per;
            batch.arrays[k].insert(batch.arrays[k].end(), src, src + per);
          }
          batch.sample_ids.push_back(ids[p]);
          ++batch.size;
        }
        if (++g % o.batch_size() == 0 || g == end) {
          const Part part_of = part((g - 1) / o.batch_size());
          batch.global_size = part_of.size;
          batch.offset = part_of.lo;
          if (!deliver(std::move(batch))) return;
          batch = empty_batch();
        }
      }
    }
  }

  void run() {
    try {
      produce();
    } catch (...) {
      std::lock_guard<std::mutex> lock(mutex);
      error = std::current_exception();
    }
    std::lock_guard<std::mutex> lock(mutex);
    finished = true;
    changed.notify_all();
  }
};

BatchStream::BatchStream(const Dataset& dataset, BatchStreamOptions options)
    : impl_(std::make_unique<Impl>(dataset, std::move(options))) {
  impl_->thread = std::thread([impl = impl_.get()] { impl->run(); });
}

BatchStream::~BatchStream() {
  {
    std::lock_guard<std::mutex> lock(impl_->mutex);
    impl_->stopping = true;
    impl_->changed.notify_all();
  }
  if (impl_->thread.joinable()) impl_->thread.join();
}

bool BatchStream::next(Batch& out) {
  std::unique_lock<std::mutex> lock(impl_->mutex);
  impl_->changed.wait(lock, [&] { return !impl_->ready.empty() || impl_->finished; });
  if (!impl_->ready.empty()) {
    out = std::move(impl_->ready.front());
    impl_->ready.pop_front();
    impl_->changed.notify_all();
    return true;
  }
  if (impl_->error) std::rethrow_exception(impl_->error);
  return false;
}

std::int64_t BatchStream::batches() const {
  const std::int64_t n = impl_->total, b = impl_->o.batch_size();
  return impl_->o.drop_last() ? n / b : (n + b - 1) / b;
}

const std::vector<ArrayInfo>& BatchStream::arrays() const { return impl_->infos; }
const std::filesystem::path& BatchStream::dataset_path() const { return impl_->dataset.path(); }
const std::string& BatchStream::split() const { return impl_->o.split(); }

std::vector<std::int64_t> BatchStream::order() const {
  std::vector<std::int64_t> out;
  std::int64_t g = 0;
  for (std::int64_t w = 0; w < impl_->windows(); ++w) {
    auto [ids, perm] = impl_->window_order(w);
    for (std::size_t p : perm) {
      if (g < impl_->used() && impl_->mine(g)) out.push_back(ids[p]);
      ++g;
    }
  }
  return out;
}

}  // namespace loci::datasets
