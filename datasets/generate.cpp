#include "datasets/generate.hpp"

#include <omp.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <ctime>
#include <map>
#include <mutex>
#include <set>

#include "datasets/chunk_codec.hpp"
#include "datasets/dataset_card.hpp"
#include "datasets/detail/worker.hpp"
#include "datasets/error.hpp"
#include "datasets/format.hpp"
#include "datasets/output_folder.hpp"
#include "datasets/progress.hpp"
#include "datasets/shard_writer.hpp"

namespace loci::data {

namespace fs = std::filesystem;

// Out of line: the one key function of SampleSource, so its type information lives in libloci_datasets, which the
// host and every plugin link (see DESIGN.md, Plugins).
SampleSource::~SampleSource() = default;

namespace {

void check_options(const GenerateOptions& o) {
  if (o.out.empty()) throw std::invalid_argument("generate: no output folder");
  std::set<std::string> names;
  for (const auto& [name, count] : o.splits) {
    if (!valid_name(name)) throw DataError(o.out, "split name '" + name + "' is not a valid name (letters, digits, _ . -)");
    if (!names.insert(name).second) throw DataError(o.out, "split '" + name + "' listed twice");
    if (count < 0) throw DataError(o.out, "split '" + name + "' has a negative sample count");
  }
  if (o.samples_per_shard <= 0) throw DataError(o.out, "samples_per_shard must be positive");
  if (o.compression.level < 0 || o.compression.level > 9) throw DataError(o.out, "gzip level must be 0..9");
  if (o.chunk_samples < 0 || o.threads < 0) throw DataError(o.out, "chunk_samples and threads must be >= 0");
}

Index wanted_index(const GenerateOptions& o, const DatasetLayout& layout) {
  Index x;
  x.schema_version = kSchemaVersion;
  x.generator = o.generator;
  x.generator_version = o.generator_version;
  x.loci_version = o.loci_version;
  x.config_yaml = o.config_yaml;
  x.plugin_abi = o.plugin_abi;
  x.seed = o.seed;
  x.samples_per_shard = o.samples_per_shard;
  x.chunk_samples = o.chunk_samples > 0 ? o.chunk_samples : auto_chunk_samples(layout, o.samples_per_shard);
  x.compression = o.compression;
  for (const auto& [name, count] : o.splits) x.splits.push_back({name, count});
  x.features = layout.sample_arrays;
  for (const auto& a : layout.dataset_arrays) x.dataset_arrays.push_back(a.spec);
  return x;
}

std::string choose_created(const GenerateOptions& o, const std::string& resumed) {
  if (!o.created.empty()) return o.created;
  if (const char* epoch = std::getenv("SOURCE_DATE_EPOCH"); epoch && *epoch) {
    char* end = nullptr;
    const long long s = std::strtoll(epoch, &end, 10);
    if (*end != '\0' || s < 0) throw std::invalid_argument("SOURCE_DATE_EPOCH is not a count of seconds: " + std::string(epoch));
    return iso8601_utc(s);
  }
  if (!resumed.empty()) return resumed;
  return iso8601_utc(static_cast<std::int64_t>(std::time(nullptr)));
}

struct Job {
  const ShardPlan* plan = nullptr;
  std::vector<std::vector<std::uint8_t>> buffers;  // one per per-sample array
  std::vector<std::int64_t> ids;
  std::vector<EncodedArray> encoded;  // with gzip: each array's chunks, compressed by the producer's threads
  EncodedArray encoded_ids;
};

// Compression runs here, on all cores, rather than inside HDF5 on the writer thread, where it would be the
// bottleneck of the whole run.
void encode(const DatasetLayout& layout, const Index& index, Job& job, int threads) {
  const auto& specs = layout.sample_arrays;
  job.encoded.resize(specs.size());
  std::vector<ArrayToEncode> arrays;
  for (std::size_t a = 0; a < specs.size(); ++a)
    arrays.push_back({job.buffers[a].data(), specs[a].bytes(), dtype_size(specs[a].dtype), &job.encoded[a]});
  arrays.push_back({reinterpret_cast<const std::uint8_t*>(job.ids.data()), sizeof(std::int64_t), sizeof(std::int64_t),
                    &job.encoded_ids});
  encode_arrays(arrays, job.plan->samples, index.chunk_samples, index.compression, threads);
}

// Makes every sample of one shard in parallel. Any exception from fill() is rethrown after the loop.
void make_samples(const SampleSource& source, const GenerateOptions& o, Job& job, int threads, Progress& progress) {
  const auto& specs = source.layout().sample_arrays;
  const ShardPlan& p = *job.plan;
  job.ids.resize(static_cast<std::size_t>(p.samples));
  job.buffers.resize(specs.size());
  for (std::size_t a = 0; a < specs.size(); ++a) job.buffers[a].assign(specs[a].bytes() * static_cast<std::size_t>(p.samples), 0);

  const std::int64_t grain = std::clamp<std::int64_t>(p.samples / (4 * threads), 1, 64);
  const std::int64_t blocks = (p.samples + grain - 1) / grain;
  std::atomic<bool> failed{false};
  std::exception_ptr error;
  std::mutex error_mutex;
#pragma omp parallel for num_threads(threads) schedule(dynamic, 1)
  for (std::int64_t b = 0; b < blocks; ++b) {
    if (failed.load(std::memory_order_relaxed)) continue;
    const std::int64_t end = std::min(p.samples, (b + 1) * grain);
    try {
      std::vector<void*> slots(specs.size());
      for (std::int64_t i = b * grain; i < end; ++i) {
        for (std::size_t a = 0; a < specs.size(); ++a)
          slots[a] = job.buffers[a].data() + static_cast<std::size_t>(i) * specs[a].bytes();
        job.ids[static_cast<std::size_t>(i)] = p.first + i;
        source.fill(SampleKey{p.split, p.first + i, o.seed}, SampleSlots(&specs, slots));
      }
      progress.advance(end - b * grain);
    } catch (...) {
      std::lock_guard<std::mutex> lock(error_mutex);
      if (!error) error = std::current_exception();
      failed = true;
    }
  }
  if (error) std::rethrow_exception(error);
}

ShardHeader header_for(const GenerateOptions& o, const Index& x, const ShardPlan& p) {
  ShardHeader h;
  h.generator = o.generator;
  h.generator_version = o.generator_version;
  h.loci_version = o.loci_version;
  h.config_yaml = o.config_yaml;
  h.created = x.created;
  h.split = p.split;
  h.plugin_abi = o.plugin_abi;
  h.seed = o.seed;
  h.shard_index = p.index;
  h.shard_count = p.count;
  h.first_sample = p.first;
  return h;
}

}  // namespace

GenerateReport generate_dataset(const SampleSource& source, const GenerateOptions& o) {
  const auto start = std::chrono::steady_clock::now();
  check_options(o);
  const DatasetLayout& layout = source.layout();
  validate_layout(layout);
  const std::vector<ShardPlan> plan = plan_shards(o.splits, o.samples_per_shard);
  for (int k : o.only_shards)
    if (k < 0 || static_cast<std::size_t>(k) >= plan.size())
      throw DataError(o.out, "only_shards names shard " + std::to_string(k) + " but the plan has " +
                                 std::to_string(plan.size()));

  Index index = wanted_index(o, layout);
  OutputFolder folder(o.out);
  OutputFolder::Found found = folder.prepare(index, plan, o.resume, o.force);
  index.created = choose_created(o, found.created);
  folder.begin(index, found.kept);

  const std::set<int> only(o.only_shards.begin(), o.only_shards.end());
  std::vector<const ShardPlan*> todo;
  std::int64_t todo_samples = 0;
  GenerateReport report;
  for (std::size_t k = 0; k < plan.size(); ++k) {
    if (!only.empty() && !only.count(static_cast<int>(k))) continue;
    if (found.kept.count(plan[k].file)) {
      ++report.shards_kept;
      continue;
    }
    todo.push_back(&plan[k]);
    todo_samples += plan[k].samples;
  }

  const int threads = o.threads > 0 ? o.threads : omp_get_max_threads();
  const fs::path name = o.out.filename().empty() ? o.out.parent_path().filename() : o.out.filename();
  Progress progress(ProgressOptions("generating " + name.string(), todo_samples).enabled(o.progress));
  {
    // Capacity 1: one shard waits while another is written and a third is made, so at most three are in memory.
    // Jobs go back to the producer once written: reusing their buffers spares the page faults of fresh memory,
    // which cost more than the copy itself on some virtual machines.
    std::mutex spare_mutex;
    std::vector<Job> spare;
    ShardWriter shard_writer;
    detail::Worker<Job> writer(1, [&](Job& job) {
      const ShardPlan& p = *job.plan;
      ShardContent content;
      content.layout = &layout;
      content.header = header_for(o, index, p);
      content.samples = p.samples;
      for (const auto& b : job.buffers) content.sample_data.push_back(b.data());
      content.sample_ids = job.ids.data();
      content.chunk_samples = index.chunk_samples;
      content.compression = o.compression;
      if (o.compression.gzip) {
        for (const auto& e : job.encoded) content.encoded.push_back(&e);
        content.encoded_ids = &job.encoded_ids;
      }
      const WrittenShard w = shard_writer.write(content, o.out / p.file);
      folder.record(ShardEntry{p.file, p.split, p.first, p.samples, w.bytes, w.sha256});
      ++report.shards_written;
      report.samples_written += p.samples;
      std::lock_guard<std::mutex> lock(spare_mutex);
      spare.push_back(std::move(job));
    });
    for (const ShardPlan* p : todo) {
      Job job;
      {
        std::lock_guard<std::mutex> lock(spare_mutex);
        if (!spare.empty()) {
          job = std::move(spare.back());
          spare.pop_back();
        }
      }
      job.plan = p;
      make_samples(source, o, job, threads, progress);
      if (o.compression.gzip) encode(layout, index, job, threads);
      writer.push(std::move(job));
    }
    writer.close();
  }
  progress.finish();

  std::map<std::string, ShardEntry> done;
  for (auto& e : folder.recorded()) done.emplace(e.file, std::move(e));
  report.complete = std::all_of(plan.begin(), plan.end(), [&](const ShardPlan& p) { return done.count(p.file) > 0; });
  if (report.complete) {
    for (const auto& p : plan) index.shards.push_back(done.at(p.file));
    const CardText card{o.pretty_name, o.license, o.card_prose, o.regenerate_command};
    // A runner that split the plan among processes may still have processes writing records; only a run that made
    // (or kept) the whole plan itself drops the journal.
    folder.finish(index, dataset_card(index, card), o.only_shards.empty());
  }
  report.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return report;
}

}  // namespace loci::data
