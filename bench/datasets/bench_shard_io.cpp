// Shard throughput: generate_dataset writing (parallel sample copy, one writer thread making, checksumming and
// fsync'ing each shard), Dataset::read of whole arrays, and BatchStream batches. MB/s count uncompressed sample
// bytes. The samples are made once up front, so the figures are the data layer's cost, not a simulation's.
//
//   bench_shard_io [--out DIR] [--shards N] [--samples-per-shard N] [--chunk N] [--reps N] [--threads N]
//
// Prints one `key=value ...` line per measurement (bench/datasets/run.sh turns them into a table).
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "datasets/batch_stream.hpp"
#include "datasets/generate.hpp"
#include "datasets/reader.hpp"
#include "sim/random/stream.hpp"

namespace fs = std::filesystem;
using namespace loci;

namespace {

// Latin-square-like arrays: 16 tokens x 5 small symbols, an int64 label, and a float32 feature block per token.
// bench/reference/shard_io_reference.py writes the same arrays with h5py.
class PreparedSource : public datasets::SampleSource {
 public:
  explicit PreparedSource(std::int64_t samples) : samples_(samples) {
    auto& s = layout_.sample_arrays;
    s.push_back({"tokens", datasets::DType::u8, {"token", "channel"}, {16, 5}, "symbols"});
    s.push_back({"label", datasets::DType::i64, {}, {}, "class"});
    s.push_back({"features", datasets::DType::f32, {"token", "feature"}, {16, 8}, "noise"});
    std::vector<float> pos(32);
    for (int t = 0; t < 16; ++t) pos[2 * t] = t % 4, pos[2 * t + 1] = t / 4;
    layout_.dataset_arrays.push_back(
        datasets::Array::of({"positions", datasets::DType::f32, {"token", "coord"}, {16, 2}, "grid"}, pos));
    sim::Rng rng(1);
    tokens_.resize(static_cast<std::size_t>(samples) * 80);
    labels_.resize(static_cast<std::size_t>(samples));
    features_.resize(static_cast<std::size_t>(samples) * 128);
    for (auto& t : tokens_) t = static_cast<std::uint8_t>(rng.below(5));
    for (auto& l : labels_) l = static_cast<std::int64_t>(rng.below(3));
    for (auto& f : features_) f = static_cast<float>(rng.normal());
  }
  const datasets::DatasetLayout& layout() const override { return layout_; }
  void fill(const datasets::SampleKey& key, const datasets::SampleSlots& out) const override {
    const auto i = static_cast<std::size_t>(key.index % samples_);
    std::memcpy(out.get<std::uint8_t>(0), &tokens_[i * 80], 80);
    *out.get<std::int64_t>(1) = labels_[i];
    std::memcpy(out.get<float>(2), &features_[i * 128], 128 * sizeof(float));
  }
  std::size_t sample_bytes() const { return 80 + 8 + 128 * sizeof(float); }

 private:
  std::int64_t samples_;
  datasets::DatasetLayout layout_;
  std::vector<std::uint8_t> tokens_;
  std::vector<std::int64_t> labels_;
  std::vector<float> features_;
};

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// CPU seconds of the whole process (all threads), user + system: a measure that a busy machine disturbs less
// than wall time.
double cpu_seconds() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  auto s = [](const timeval& t) { return static_cast<double>(t.tv_sec) + 1e-6 * static_cast<double>(t.tv_usec); };
  return s(u.ru_utime) + s(u.ru_stime);
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  fs::path out = fs::temp_directory_path() / "loci-bench-shard-io";
  std::int64_t shards = 8, per_shard = 10000, chunk = 512;
  int reps = 3, threads = 0;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string a = argv[i], v = argv[i + 1];
    if (a == "--out")
      out = v;
    else if (a == "--shards")
      shards = std::stoll(v);
    else if (a == "--samples-per-shard")
      per_shard = std::stoll(v);
    else if (a == "--chunk")
      chunk = std::stoll(v);
    else if (a == "--reps")
      reps = std::stoi(v);
    else if (a == "--threads")
      threads = std::stoi(v);
    else {
      std::fprintf(stderr, "unknown option %s\n", a.c_str());
      return 64;
    }
  }
  const PreparedSource source(per_shard);
  const std::int64_t samples = shards * per_shard;
  const double mb = static_cast<double>(samples) * static_cast<double>(source.sample_bytes()) / 1e6;

  for (const bool gzip : {true, false}) {
    const std::string codec = gzip ? "gzip4+shuffle" : "none";
    datasets::GenerateOptions o;
    o.out = out / codec;
    o.splits = {{"train", samples}};
    o.samples_per_shard = per_shard;
    o.chunk_samples = chunk;
    o.generator = "bench";
    o.created = "2000-01-01T00:00:00Z";
    o.compression.gzip = gzip;
    o.threads = threads;
    o.progress = false;
    o.force = true;

    // Read buffers are made and touched once: a trainer reuses its buffers, and first-touch page faults (costly on
    // virtual machines) would otherwise be counted as reading.
    std::vector<std::vector<std::uint8_t>> buffers;
    for (const auto& a : source.layout().sample_arrays)
      buffers.emplace_back(a.bytes() * static_cast<std::size_t>(samples), std::uint8_t{1});
    std::vector<double> write_s, read_s, stream_s, write_cpu, read_cpu;
    std::int64_t bytes_on_disk = 0, batches = 0;
    for (int r = 0; r < reps; ++r) {
      fs::remove_all(o.out);
      auto t0 = std::chrono::steady_clock::now();
      double c0 = cpu_seconds();
      datasets::generate_dataset(source, o);
      write_s.push_back(seconds_since(t0));
      write_cpu.push_back(cpu_seconds() - c0);

      const auto ds = datasets::Dataset::open(o.out);
      bytes_on_disk = 0;
      for (const auto& s : ds.index().shards) bytes_on_disk += s.bytes;
      t0 = std::chrono::steady_clock::now();
      c0 = cpu_seconds();
      for (std::size_t k = 0; k < ds.arrays().size(); ++k)
        ds.read("train", ds.arrays()[k].name, 0, samples, buffers[k].data(), ds.arrays()[k].dtype);
      read_s.push_back(seconds_since(t0));
      read_cpu.push_back(cpu_seconds() - c0);

      t0 = std::chrono::steady_clock::now();
      datasets::BatchStream stream(ds,
                                   datasets::BatchStreamOptions("train", {"tokens", "label"}, 128).seed(1).epoch(r));
      datasets::Batch b;
      batches = 0;
      while (stream.next(b)) ++batches;
      stream_s.push_back(seconds_since(t0));
    }
    std::printf(
        "impl=cpp codec=%s op=write samples=%lld mb=%.1f seconds=%.3f mb_per_s=%.1f mb_per_cpu_s=%.1f "
        "disk_mb=%.1f\n",
        codec.c_str(), static_cast<long long>(samples), mb, median(write_s), mb / median(write_s),
        mb / median(write_cpu), static_cast<double>(bytes_on_disk) / 1e6);
    std::printf("impl=cpp codec=%s op=read samples=%lld mb=%.1f seconds=%.3f mb_per_s=%.1f mb_per_cpu_s=%.1f\n",
                codec.c_str(), static_cast<long long>(samples), mb, median(read_s), mb / median(read_s),
                mb / median(read_cpu));
    std::printf("impl=cpp codec=%s op=stream batches=%lld seconds=%.3f batches_per_s=%.0f\n", codec.c_str(),
                static_cast<long long>(batches), median(stream_s), static_cast<double>(batches) / median(stream_s));
  }
  fs::remove_all(out);
  return 0;
}
