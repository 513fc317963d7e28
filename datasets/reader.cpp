#include "datasets/reader.hpp"

#include <algorithm>
#include <list>
#include <map>
#include <mutex>
#include <set>

#include "datasets/checksum.hpp"
#include "datasets/error.hpp"
#include "datasets/format.hpp"
#include "datasets/shard_reader.hpp"

namespace loci::datasets {

namespace fs = std::filesystem;

namespace {

// More open shards than this and the least recently used is closed: a long dataset must not run out of file handles.
constexpr std::size_t kOpenShards = 32;

std::string short_hash(const std::string& h) { return h.size() > 12 ? h.substr(0, 12) + "…" : h; }

}  // namespace

struct Dataset::Impl {
  fs::path path;  // what was opened
  fs::path dir;   // where shard files live
  bool folder = false;
  Index index;
  fs::path index_file;
  std::vector<ArrayInfo> arrays, dataset_arrays;
  std::map<std::string, std::vector<std::size_t>> split_shards;  // split -> shard indices by first_sample

  mutable std::mutex mutex;
  mutable std::map<std::size_t, std::unique_ptr<ShardFile>> open;
  mutable std::list<std::size_t> recent;  // front = most recently used
  mutable std::set<std::size_t> checked;  // shards whose SHA-256 matched index.json in this process

  // HDF5 (1.10) can crash on a damaged file, so a shard of a folder reaches it only once its bytes are the ones
  // index.json lists: a damaged shard is then a DataError naming it, never a crash.
  void check_checksum(std::size_t k) const {
    if (checked.count(k)) return;
    const ShardEntry& e = index.shards[k];
    const fs::path file = dir / e.file;
    const std::string have = sha256_file(file);
    if (have != e.sha256)
      throw DataError(
          file, "checksum mismatch (index.json says " + short_hash(e.sha256) + ", file has " + short_hash(have) + ")");
    checked.insert(k);
  }

  fs::path shard_path(std::size_t k) const { return folder ? dir / index.shards[k].file : path; }

  // Opens shard k once and checks it against the index: what a shard holds must be what the index promises.
  const ShardFile& shard(std::size_t k) const {
    recent.remove(k);
    recent.push_front(k);
    auto it = open.find(k);
    if (it != open.end()) return *it->second;
    if (open.size() >= kOpenShards) {
      open.erase(recent.back());
      recent.pop_back();
    }
    if (folder) check_checksum(k);
    auto file = std::make_unique<ShardFile>(shard_path(k));
    if (folder) check(*file, index.shards[k]);
    return *open.emplace(k, std::move(file)).first->second;
  }

  void check(const ShardFile& f, const ShardEntry& e) const {
    if (f.samples() != e.samples)
      throw DataError(f.path(), "holds " + std::to_string(f.samples()) + " samples but index.json says " +
                                    std::to_string(e.samples));
    auto compare = [&](const ArrayInfo& want) {
      const ArrayInfo have = f.array(want.name);
      if (have.dtype != want.dtype || have.shape != want.shape || have.per_sample != want.per_sample)
        throw DataError(f.path(), "array '" + want.name + "' is " + describe_type(have) + " but index.json says " +
                                      describe_type(want));
    };
    for (const auto& a : arrays) compare(a);
    for (const auto& a : dataset_arrays) compare(a);
  }

  const std::vector<std::size_t>& shards_of(const std::string& split) const {
    auto it = split_shards.find(split);
    if (it == split_shards.end()) throw DataError(index_file, "no split '" + split + "'");
    return it->second;
  }
};

Dataset::Dataset() : impl_(std::make_unique<Impl>()) {}
Dataset::Dataset(Dataset&&) noexcept = default;
Dataset& Dataset::operator=(Dataset&&) noexcept = default;
Dataset::~Dataset() = default;

Dataset Dataset::open(const fs::path& path) {
  Dataset d;
  Impl& m = *d.impl_;
  m.path = path;
  std::error_code ec;
  if (!fs::exists(path, ec))
    throw DataError(path, "no such dataset folder (make one with `loci generate CONFIG out=" + path.string() +
                              "`, or point `data` at an existing one)");
  m.folder = fs::is_directory(path, ec);
  if (m.folder) {
    m.dir = path;
    m.index_file = path / "index.json";
    if (!fs::exists(m.index_file, ec))
      throw DataError(m.index_file, fs::exists(path / ".loci-journal", ec)
                                        ? "missing: the generation that made this folder did not finish (resume it)"
                                        : "missing: not a loci dataset folder");
    m.index = Index::load(m.index_file);
    for (const auto& e : m.index.shards) {
      const fs::path file = path / e.file;
      if (!fs::exists(file, ec)) throw DataError(file, "missing (listed in index.json)");
      const auto size = static_cast<std::int64_t>(fs::file_size(file, ec));
      if (size != e.bytes)
        throw DataError(file, std::string(size < e.bytes ? "truncated" : "wrong size") + " (index.json says " +
                                  std::to_string(e.bytes) + " bytes, file has " + std::to_string(size) + ")");
    }
    for (const auto& s : m.index.features) m.arrays.push_back(ArrayInfo::of(s, true));
    for (const auto& s : m.index.dataset_arrays) m.dataset_arrays.push_back(ArrayInfo::of(s, false));
  } else {
    m.dir = path.parent_path();
    m.index_file = path;
    ShardFile shard(path);
    const Attributes attrs = shard.attributes();
    auto text = [&](const char* key) {
      auto it = attrs.find(key);
      return it != attrs.end() && std::holds_alternative<std::string>(it->second) ? std::get<std::string>(it->second)
                                                                                  : "";
    };
    Index& x = m.index;
    x.schema_version = kSchemaVersion;
    x.generator = text("generator");
    x.generator_version = text("generator_version");
    x.loci_version = text("loci_version");
    x.config_yaml = text("config_yaml");
    x.created = text("created");
    if (auto it = attrs.find("seed"); it != attrs.end()) {
      if (std::holds_alternative<std::int64_t>(it->second))
        x.seed = static_cast<std::uint64_t>(std::get<std::int64_t>(it->second));
      else if (std::holds_alternative<std::string>(it->second))
        x.seed = std::stoull(std::get<std::string>(it->second));
    }
    const std::string split = text("split").empty() ? "all" : text("split");
    x.splits.push_back({split, shard.samples()});
    x.shards.push_back(
        {path.filename().string(), split, 0, shard.samples(), static_cast<std::int64_t>(fs::file_size(path, ec)), ""});
    for (auto& a : shard.arrays()) {
      (a.per_sample ? x.features : x.dataset_arrays).push_back(a.spec());
      (a.per_sample ? m.arrays : m.dataset_arrays).push_back(std::move(a));
    }
    x.chunk_samples = m.arrays.empty() ? shard.samples() : shard.chunk_samples(m.arrays.front().name);
    m.open.emplace(0, std::make_unique<ShardFile>(std::move(shard)));
    m.recent.push_front(0);
  }
  for (const auto& s : m.index.splits) m.split_shards[s.name];
  for (std::size_t k = 0; k < m.index.shards.size(); ++k) m.split_shards[m.index.shards[k].split].push_back(k);
  for (auto& [split, list] : m.split_shards)
    std::sort(list.begin(), list.end(), [&](std::size_t a, std::size_t b) {
      return m.index.shards[a].first_sample < m.index.shards[b].first_sample;
    });
  return d;
}

const fs::path& Dataset::path() const { return impl_->path; }
bool Dataset::is_folder() const { return impl_->folder; }
const Index& Dataset::index() const { return impl_->index; }

std::vector<std::string> Dataset::splits() const {
  std::vector<std::string> out;
  for (const auto& s : impl_->index.splits) out.push_back(s.name);
  return out;
}

std::int64_t Dataset::samples(const std::string& split) const {
  for (const auto& s : impl_->index.splits)
    if (s.name == split) return s.samples;
  throw DataError(impl_->index_file, "no split '" + split + "'");
}

const std::vector<ArrayInfo>& Dataset::arrays() const { return impl_->arrays; }
const std::vector<ArrayInfo>& Dataset::dataset_arrays() const { return impl_->dataset_arrays; }

const ArrayInfo& Dataset::array(const std::string& name) const {
  for (const auto* list : {&impl_->arrays, &impl_->dataset_arrays})
    for (const auto& a : *list)
      if (a.name == name) return a;
  throw DataError(impl_->index_file, "no array '" + name + "'");
}

Attributes Dataset::attributes() const {
  std::lock_guard<std::mutex> lock(impl_->mutex);
  if (impl_->index.shards.empty()) return {};
  return impl_->shard(0).attributes();
}

std::int64_t Dataset::chunk_samples() const {
  return impl_->index.chunk_samples > 0 ? impl_->index.chunk_samples
                                        : std::max<std::int64_t>(1, impl_->index.samples_per_shard);
}

void Dataset::expect(const std::string& name, DType dtype, const std::vector<std::int64_t>& shape) const {
  const ArrayInfo& a = array(name);
  if (a.dtype != dtype || a.shape != shape)
    throw DataError(
        impl_->index_file, "array '" + name + "' is " + describe_type(a) + ", expected " +
                               std::string(dtype_name(dtype)) + " of shape " + [&] {
                                 std::string s = "[";
                                 for (std::size_t i = 0; i < shape.size(); ++i)
                                   s += (i ? ", " : "") + std::to_string(shape[i]);
                                 return s + "]";
                               }());
}

void Dataset::read(const std::string& split, const std::string& name, std::int64_t first, std::int64_t count, void* out,
                   DType dtype) const {
  const Impl& m = *impl_;
  const bool ids = name == kSampleIdArray;
  const std::size_t per = ids ? sizeof(std::int64_t) : array(name).bytes();
  if (!ids && !array(name).per_sample) throw DataError(m.index_file, "array '" + name + "' is not per-sample");
  if (!ids && array(name).dtype != dtype)
    throw DataError(m.index_file,
                    "array '" + name + "' is " + dtype_name(array(name).dtype) + ", not " + dtype_name(dtype));
  const std::int64_t total = samples(split);
  if (first < 0 || count < 0 || first + count > total)
    throw DataError(m.index_file, "samples " + std::to_string(first) + ".." + std::to_string(first + count - 1) +
                                      " of split '" + split + "' out of range (it holds " + std::to_string(total) +
                                      ")");
  const auto& list = m.shards_of(split);
  auto* dst = static_cast<std::uint8_t*>(out);
  std::lock_guard<std::mutex> lock(m.mutex);
  auto it = std::upper_bound(list.begin(), list.end(), first,
                             [&](std::int64_t v, std::size_t k) { return v < m.index.shards[k].first_sample; });
  for (it = it == list.begin() ? it : std::prev(it); count > 0 && it != list.end(); ++it) {
    const ShardEntry& e = m.index.shards[*it];
    const std::int64_t offset = first - e.first_sample;
    const std::int64_t n = std::min(count, e.samples - offset);
    if (offset < 0 || n <= 0) throw DataError(m.shard_path(*it), "shards of split '" + split + "' leave a gap");
    m.shard(*it).read(name, offset, n, dst, dtype);
    dst += static_cast<std::size_t>(n) * per;
    first += n;
    count -= n;
  }
  if (count > 0)
    throw DataError(m.index_file, "shards of split '" + split + "' end before sample " + std::to_string(first));
}

Array Dataset::read_dataset_array(const std::string& name) const {
  const ArrayInfo& a = array(name);
  if (a.per_sample) throw DataError(impl_->index_file, "array '" + name + "' is per-sample, not a dataset array");
  if (impl_->index.shards.empty()) throw DataError(impl_->index_file, "no shards to read '" + name + "' from");
  std::lock_guard<std::mutex> lock(impl_->mutex);
  return Array{a.spec(), impl_->shard(0).read_all(name)};
}

std::vector<std::string> Dataset::read_text(const std::string& name) const {
  const Impl& m = *impl_;
  if (m.index.shards.empty()) return {};
  std::lock_guard<std::mutex> lock(m.mutex);
  const ShardFile& f = m.shard(0);
  const auto names = f.text_arrays();
  if (std::find(names.begin(), names.end(), name) == names.end()) return {};
  return f.read_text(name);
}

VerifyReport Dataset::verify() const {
  const Impl& m = *impl_;
  VerifyReport r;
  if (!m.folder) {
    // No index, no checksum: reading every array through makes HDF5 check what it can (gzip's own checksums).
    std::lock_guard<std::mutex> lock(m.mutex);
    const ShardFile& f = m.shard(0);
    f.read_all(kSampleIdArray);
    for (const auto& a : m.arrays) f.read_all(a.name);
    for (const auto& a : m.dataset_arrays) f.read_all(a.name);
    for (const auto& t : f.text_arrays()) f.read_text(t);
    r.shards = 1;
    r.bytes = m.index.shards[0].bytes;
    return r;
  }
  for (std::size_t k = 0; k < m.index.shards.size(); ++k) {
    const ShardEntry& e = m.index.shards[k];
    const fs::path file = m.dir / e.file;
    std::error_code ec;
    if (!fs::exists(file, ec)) throw DataError(file, "missing (listed in index.json)");
    const auto size = static_cast<std::int64_t>(fs::file_size(file, ec));
    if (size != e.bytes)
      throw DataError(file, std::string(size < e.bytes ? "truncated" : "wrong size") + " (index.json says " +
                                std::to_string(e.bytes) + " bytes, file has " + std::to_string(size) + ")");
    {
      std::lock_guard<std::mutex> lock(m.mutex);
      m.checked.erase(k);  // verify means now: hash again even if an earlier read did
      m.check_checksum(k);
      // The dataset's own arrays (positions, distances) are read from the first shard: every other must agree.
      for (const auto& a : m.dataset_arrays)
        if (k > 0 && m.shard(k).read_all(a.name) != m.shard(0).read_all(a.name))
          throw DataError(file, "its dataset array '" + a.name + "' differs from that of " +
                                    (m.dir / m.index.shards[0].file).string() +
                                    " (every shard of a dataset holds the same one)");
    }
    ++r.shards;
    r.bytes += size;
  }
  r.checksums = true;
  return r;
}

}  // namespace loci::datasets
