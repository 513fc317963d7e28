#include "datasets/format.hpp"

#include <algorithm>
#include <cstdio>
#include <ctime>
#include <map>
#include <set>
#include <stdexcept>

namespace loci::datasets {

const std::vector<std::string>& reserved_attributes() {
  static const std::vector<std::string> names = {
      "loci_schema_version", "generator",   "generator_version", "plugin_abi",  "loci_version", "seed", "split",
      "shard_index",         "shard_count", "first_sample",      "config_yaml", "created"};
  return names;
}

std::string shard_file_name(const std::string& split, std::int64_t index, std::int64_t count) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "-%05lld-of-%05lld.h5", static_cast<long long>(index), static_cast<long long>(count));
  return split + buf;
}

std::vector<ShardPlan> plan_shards(const std::vector<std::pair<std::string, std::int64_t>>& splits,
                                   std::int64_t samples_per_shard) {
  std::vector<ShardPlan> plan;
  for (const auto& [split, total] : splits) {
    const std::int64_t count = (total + samples_per_shard - 1) / samples_per_shard;
    for (std::int64_t k = 0; k < count; ++k) {
      ShardPlan p;
      p.split = split;
      p.index = k;
      p.count = count;
      p.first = k * samples_per_shard;
      p.samples = std::min(samples_per_shard, total - p.first);
      p.file = shard_file_name(split, k, count);
      plan.push_back(std::move(p));
    }
  }
  return plan;
}

bool valid_name(const std::string& name) {
  if (name.empty() || name[0] == '.') return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-' ||
           c == '.';
  });
}

namespace {

void check_spec(const ArraySpec& s, const char* kind) {
  const std::string what = std::string(kind) + " array '" + s.name + "'";
  if (!valid_name(s.name)) throw std::invalid_argument(what + ": not a valid name (letters, digits, _ . -)");
  if (s.dims.size() != s.shape.size())
    throw std::invalid_argument(what + ": " + std::to_string(s.dims.size()) + " dims but a shape of rank " +
                                std::to_string(s.shape.size()));
  for (std::size_t i = 0; i < s.dims.size(); ++i) {
    if (!valid_name(s.dims[i]))
      throw std::invalid_argument(what + ": dimension '" + s.dims[i] + "' is not a valid name");
    if (s.dims[i] == kSampleDim)
      throw std::invalid_argument(what + ": 'sample' is the shard's own first axis; leave it out of dims");
    if (s.shape[i] <= 0) throw std::invalid_argument(what + ": dimension '" + s.dims[i] + "' has size <= 0");
  }
}

}  // namespace

void validate_layout(const DatasetLayout& layout) {
  std::set<std::string> names = {kSampleIdArray};
  std::map<std::string, std::int64_t> dims = {{kSampleDim, -1}};
  auto claim = [&](const ArraySpec& s, const char* kind) {
    check_spec(s, kind);
    if (!names.insert(s.name).second)
      throw std::invalid_argument(std::string(kind) + " array '" + s.name + "': name used twice or reserved");
    for (std::size_t i = 0; i < s.dims.size(); ++i) {
      auto [it, fresh] = dims.emplace(s.dims[i], s.shape[i]);
      if (!fresh && it->second != s.shape[i])
        throw std::invalid_argument(std::string(kind) + " array '" + s.name + "': dimension '" + s.dims[i] +
                                    "' has size " + std::to_string(s.shape[i]) + " here and " +
                                    std::to_string(it->second) + " elsewhere");
    }
  };
  for (const auto& s : layout.sample_arrays) claim(s, "per-sample");
  bool positions = false;
  for (const auto& a : layout.dataset_arrays) {
    claim(a.spec, "dataset");
    if (a.bytes.size() != a.spec.bytes())
      throw std::invalid_argument("dataset array '" + a.spec.name + "': " + std::to_string(a.bytes.size()) +
                                  " bytes for a shape of " + std::to_string(a.spec.bytes()));
    positions = positions || a.spec.name == "positions";
  }
  if (!positions) throw std::invalid_argument("layout: no dataset array 'positions' (token x coordinate)");
  for (const auto& t : layout.text_arrays) {
    if (t.values.empty()) throw std::invalid_argument("text array '" + t.name + "': no values");
    claim(t.shape(), "text");
  }
  for (const auto& [dim, size] : dims)
    if (names.count(dim)) throw std::invalid_argument("layout: '" + dim + "' names both an array and a dimension");
  for (const auto& [key, value] : layout.attributes) {
    const auto& r = reserved_attributes();
    if (std::find(r.begin(), r.end(), key) != r.end())
      throw std::invalid_argument("layout: attribute '" + key + "' is reserved for the writer");
  }
}

std::vector<std::pair<std::string, std::int64_t>> dimension_sizes(const DatasetLayout& layout) {
  std::vector<std::pair<std::string, std::int64_t>> out;
  auto add = [&](const ArraySpec& s) {
    for (std::size_t i = 0; i < s.dims.size(); ++i) {
      const bool seen = std::any_of(out.begin(), out.end(), [&](const auto& d) { return d.first == s.dims[i]; });
      if (!seen) out.emplace_back(s.dims[i], s.shape[i]);
    }
  };
  for (const auto& s : layout.sample_arrays) add(s);
  for (const auto& a : layout.dataset_arrays) add(a.spec);
  for (const auto& t : layout.text_arrays) add(t.shape());
  return out;
}

std::int64_t auto_chunk_samples(const DatasetLayout& layout, std::int64_t samples_per_shard) {
  std::size_t widest = sizeof(std::int64_t);  // /sample_id
  for (const auto& s : layout.sample_arrays) widest = std::max(widest, s.bytes());
  const auto fit = static_cast<std::int64_t>((256u << 10) / widest);
  return std::clamp<std::int64_t>(fit, 1, std::max<std::int64_t>(1, samples_per_shard));
}

std::string iso8601_utc(std::int64_t unix_seconds) {
  const std::time_t t = static_cast<std::time_t>(unix_seconds);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

}  // namespace loci::datasets
