#include "datasets/generate.hpp"

#include <omp.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <ctime>
#include <map>
#include <mutex>
#include <optional>
#include <set>

#include "datasets/chunk_codec.hpp"
#include "datasets/dataset_card.hpp"
#include "datasets/detail/worker.hpp"
#include "datasets/error.hpp"
#include "datasets/folder_lock.hpp"
#include "datasets/format.hpp"
#include "datasets/output_folder.hpp"
#include "datasets/progress.hpp"
#include "datasets/shard_writer.hpp"

namespace loci::datasets {

namespace fs = std::filesystem;

// Out of line: the one key function of SampleSource, so its type information lives in libloci_datasets, which the
// host and every plugin link (docs/ARCHITECTURE.md, "The plugin contract").
SampleSource::~SampleSource() = default;

namespace {

void check_options(const GenerateOptions& o) {
  if (o.out.empty()) throw std::invalid_argument("generate: no output folder");
  std::set<std::string> names;
  for (const auto& [name, count] : o.splits) {
    if (!valid_name(name))
      throw DataError(o.out, "split name '" + name + "' is not a valid name (letters, digits, _ . -)");
    if (!names.insert(name).second) throw DataError(o.out, "split '" + name + "' listed twice");
    if (count < 0) throw DataError(o.out, "split '" + name + "' has a negative sample count");
  }
  if (o.samples_per_shard <= 0) throw DataError(o.out, "samples_per_shard must be positive");
  if (o.compression.level < 0 || o.compression.level > 9) throw DataError(o.out, "gzip level must be 0..9");
  if (o.chunk_samples < 0 || o.threads < 0) throw DataError(o.out, "chunk_samples and threads must be >= 0");
  if (o.world_size < 1 || o.rank < 0 || o.rank >= o.world_size)
    throw DataError(o.out,
                    "rank " + std::to_string(o.rank) + " is not a rank of a world of " + std::to_string(o.world_size));
  if (o.world_size > 1 && o.force)
    throw DataError(
        o.out, "force cannot be used by one rank of " + std::to_string(o.world_size) +
                   " (it would remove the other ranks' shards); clear the folder first or use force in one process");
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
  for (const auto& t : layout.text_arrays) x.text_arrays.push_back(t.shape());
  x.inputs = o.inputs;
  return x;
}

// The `created` the user fixed, if any: every rank of a run computes the same one.
std::optional<std::string> fixed_created(const GenerateOptions& o) {
  if (!o.created.empty()) return o.created;
  if (const char* epoch = std::getenv("SOURCE_DATE_EPOCH"); epoch && *epoch) {
    char* end = nullptr;
    const long long s = std::strtoll(epoch, &end, 10);
    if (*end != '\0' || s < 0)
      throw std::invalid_argument("SOURCE_DATE_EPOCH is not a count of seconds: " + std::string(epoch));
    return iso8601_utc(s);
  }
  return std::nullopt;
}

std::string choose_created(const GenerateOptions& o, const std::string& resumed) {
  if (auto fixed = fixed_created(o)) return *fixed;
  if (!resumed.empty()) return resumed;
  return iso8601_utc(static_cast<std::int64_t>(std::time(nullptr)));
}

// Writes index.json (and the card) once every shard of the plan has a record and its file is in place: by any
// process of the run, as often as asked, since the same records give the same bytes. Returns whether it did; the
// shards still missing go to `missing` when given.
bool write_index_if_complete(OutputFolder& folder, Index index, const std::vector<ShardPlan>& plan,
                             const GenerateOptions& o, std::vector<const ShardPlan*>* missing = nullptr) {
  std::map<std::string, ShardEntry> done;
  for (auto& e : folder.recorded()) done.emplace(e.file, std::move(e));
  for (const auto& p : plan) {
    const auto it = done.find(p.file);
    std::error_code ec;
    const bool present = it != done.end() && it->second.split == p.split && it->second.first_sample == p.first &&
                         it->second.samples == p.samples &&
                         static_cast<std::int64_t>(fs::file_size(o.out / p.file, ec)) == it->second.bytes && !ec;
    if (!present) {
      if (!missing) return false;
      missing->push_back(&p);
    } else {
      index.shards.push_back(it->second);
    }
  }
  if (missing && !missing->empty()) return false;
  const CardText card{o.pretty_name, o.license, o.card_prose, o.regenerate_command};
  folder.finish(index, dataset_card(index, card), true);
  return true;
}

// `merge`: index.json from the records of a run whose shards are all made.
GenerateReport merge_records(OutputFolder& folder, Index index, const std::vector<ShardPlan>& plan,
                             const GenerateOptions& o) {
  GenerateReport report;
  const std::optional<Index> run = folder.in_progress();
  if (!run) {
    std::error_code ec;
    if (!fs::exists(o.out / "index.json", ec)) throw DataError(o.out, "holds no generation run to merge");
    const Index done = Index::load(o.out / "index.json");
    if (auto diff = identity_difference(done.identity(), index.identity()))
      throw DataError(o.out, "holds a different dataset (" + *diff + " in index.json)");
    report.shards_kept = static_cast<std::int64_t>(done.shards.size());
    report.complete = true;  // merged already
    return report;
  }
  if (auto diff = identity_difference(run->identity(), index.identity()))
    throw DataError(o.out, "holds a run of a different dataset (" + *diff + " in .loci-journal/dataset.json)");
  index.created = fixed_created(o).value_or(run->created);
  std::vector<const ShardPlan*> missing;
  if (!write_index_if_complete(folder, index, plan, o, &missing)) {
    std::string names;
    for (std::size_t i = 0; i < missing.size() && i < 3; ++i) names += (i ? ", " : "") + missing[i]->file;
    throw DataError(o.out, "cannot merge: " + std::to_string(missing.size()) + " of " + std::to_string(plan.size()) +
                               " shards are missing (" + names + (missing.size() > 3 ? ", ..." : "") +
                               "); rerun the ranks that make them with resume");
  }
  report.shards_kept = static_cast<std::int64_t>(plan.size());
  report.complete = true;
  return report;
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
  for (std::size_t a = 0; a < specs.size(); ++a)
    job.buffers[a].assign(specs[a].bytes() * static_cast<std::size_t>(p.samples), 0);

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

// Round-robin rather than contiguous blocks: each split's shards (and their cost) spread over every rank.
std::vector<ShardPlan> own_shards(const std::vector<ShardPlan>& plan, const GenerateOptions& o) {
  std::vector<ShardPlan> own;
  for (std::size_t k = static_cast<std::size_t>(o.rank); k < plan.size(); k += static_cast<std::size_t>(o.world_size))
    own.push_back(plan[k]);
  return own;
}

// The shards still to make: those a resumed run did not find finished (counted as kept).
std::vector<const ShardPlan*> shards_to_make(const std::vector<ShardPlan>& own, const OutputFolder::Found& found,
                                             GenerateReport& report) {
  std::vector<const ShardPlan*> todo;
  for (const auto& p : own) {
    if (found.kept.count(p.file))
      ++report.shards_kept;
    else
      todo.push_back(&p);
  }
  return todo;
}

ShardContent content_of(const Job& job, const DatasetLayout& layout, const GenerateOptions& o, const Index& index) {
  ShardContent content;
  content.layout = &layout;
  content.header = header_for(o, index, *job.plan);
  content.samples = job.plan->samples;
  for (const auto& b : job.buffers) content.sample_data.push_back(b.data());
  content.sample_ids = job.ids.data();
  content.chunk_samples = index.chunk_samples;
  content.compression = o.compression;
  if (o.compression.gzip) {
    for (const auto& e : job.encoded) content.encoded.push_back(&e);
    content.encoded_ids = &job.encoded_ids;
  }
  return content;
}

// Makes the shards on all cores while a writer thread writes the ones made. Capacity 1: one shard waits while
// another is written and a third is made, so at most three are in memory. Jobs go back to the producer once written:
// reusing their buffers spares the page faults of fresh memory, which cost more than the copy itself on some
// virtual machines.
void make_and_write(const SampleSource& source, const GenerateOptions& o, const Index& index, OutputFolder& folder,
                    const std::vector<const ShardPlan*>& todo, GenerateReport& report) {
  std::int64_t todo_samples = 0;
  for (const ShardPlan* p : todo) todo_samples += p->samples;
  // More threads than cores only time-slice them (the bytes never depend on the count).
  const int threads = o.threads > 0 ? std::min(o.threads, omp_get_num_procs()) : omp_get_max_threads();
  const fs::path name = o.out.filename().empty() ? o.out.parent_path().filename() : o.out.filename();
  Progress progress(ProgressOptions("generating " + name.string(), todo_samples).enabled(o.progress));
  const DatasetLayout& layout = source.layout();
  {
    std::mutex spare_mutex;
    std::vector<Job> spare;
    ShardWriter shard_writer;
    detail::Worker<Job> writer(1, [&](Job& job) {
      const ShardPlan& p = *job.plan;
      const WrittenShard w = shard_writer.write(content_of(job, layout, o, index), o.out / p.file);
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
}

}  // namespace

GenerateReport generate_dataset(const SampleSource& source, const GenerateOptions& o) {
  const auto start = std::chrono::steady_clock::now();
  auto seconds = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(); };
  check_options(o);
  // One writer per folder; the ranks of one launch each hold their own claim.
  const FolderLock claim(o.out, o.world_size > 1 ? ".loci-lock-rank" + std::to_string(o.rank) : ".loci-lock");
  validate_layout(source.layout());
  const std::vector<ShardPlan> plan = plan_shards(o.splits, o.samples_per_shard);
  Index index = wanted_index(o, source.layout());
  OutputFolder folder(o.out);
  if (o.merge) {
    GenerateReport report = merge_records(folder, index, plan, o);
    report.seconds = seconds();
    return report;
  }

  const bool shared = o.world_size > 1;
  const std::vector<ShardPlan> own = own_shards(plan, o);
  GenerateReport report;
  if (shared && own.empty()) {  // more ranks than shards: touch nothing the others may be finishing
    report.complete = fs::exists(o.out / "index.json");
    return report;
  }
  OutputFolder::Found found = folder.prepare(index, own, o.resume, o.force, shared);
  index.created = choose_created(o, found.created);
  const std::string journal_created = folder.begin(index, found.kept, shared);
  if (shared && !fixed_created(o)) index.created = journal_created;  // "now" as the first rank saw it
  make_and_write(source, o, index, folder, shards_to_make(own, found, report), report);

  // Each rank records its shards before looking for the others', so the last to finish sees them all.
  report.complete = write_index_if_complete(folder, index, plan, o);
  if (!report.complete && shared) report.complete = fs::exists(o.out / "index.json");  // another rank finished it
  report.seconds = seconds();
  return report;
}

}  // namespace loci::datasets
