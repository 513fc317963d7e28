#include "datasets/index.hpp"

#include <fstream>
#include <sstream>
#include <type_traits>

#include "datasets/checksum.hpp"
#include "datasets/config_difference.hpp"
#include "datasets/error.hpp"
#include "datasets/format.hpp"

namespace loci::datasets {

namespace fs = std::filesystem;
using ojson = nlohmann::ordered_json;

std::optional<DType> dtype_from_name(const std::string& name) {
  for (DType t : {DType::u8, DType::i8, DType::u16, DType::i16, DType::u32, DType::i32, DType::u64, DType::i64,
                  DType::f32, DType::f64})
    if (name == dtype_name(t)) return t;
  return std::nullopt;
}

// A whole number where the index promises one. nlohmann converts a float such as 5.5e91 to an integer by a cast
// whose result is undefined (the index fuzzer's find), so anything but a JSON integer is refused first.
template <class T = std::int64_t>
T whole(const nlohmann::json& j, const char* key) {
  const auto& v = j.at(key);
  if (!v.is_number_integer() ||
      (std::is_unsigned_v<T> && v.is_number_integer() && !v.is_number_unsigned() && v.get<std::int64_t>() < 0))
    throw std::invalid_argument(std::string("'") + key + "' is not a whole number" +
                                (std::is_unsigned_v<T> ? " >= 0" : ""));
  return v.get<T>();
}

template <class T>
T whole_or(const nlohmann::json& j, const char* key, T fallback) {
  return j.contains(key) ? whole<T>(j, key) : fallback;
}

ojson spec_to_json(const ArraySpec& s) {
  return ojson{{"name", s.name}, {"dtype", dtype_name(s.dtype)}, {"dims", s.dims}, {"shape", s.shape}, {"doc", s.doc}};
}

ArraySpec spec_from_json(const nlohmann::json& j) {
  ArraySpec s;
  s.name = j.at("name").get<std::string>();
  auto t = dtype_from_name(j.at("dtype").get<std::string>());
  if (!t) throw std::invalid_argument("array '" + s.name + "': unknown dtype " + j.at("dtype").dump());
  s.dtype = *t;
  s.dims = j.at("dims").get<std::vector<std::string>>();
  for (const auto& v : j.at("shape")) {
    if (!v.is_number_integer())
      throw std::invalid_argument("array '" + s.name + "': a shape entry is not a whole number");
    s.shape.push_back(v.get<std::int64_t>());
  }
  s.doc = j.value("doc", "");
  if (s.dims.size() != s.shape.size())
    throw std::invalid_argument("array '" + s.name + "': dims and shape differ in length");
  return s;
}

ojson Index::identity() const {
  ojson j;
  j["loci_schema_version"] = schema_version;
  j["generator"] = generator;
  j["generator_version"] = generator_version;
  j["seed"] = seed;
  j["config_yaml"] = config_yaml;
  ojson sp = ojson::array();
  for (const auto& s : splits) sp.push_back(ojson{{"name", s.name}, {"samples", s.samples}});
  j["splits"] = sp;
  j["samples_per_shard"] = samples_per_shard;
  j["chunk_samples"] = chunk_samples;
  j["compression"] = ojson{{"gzip", compression.gzip}, {"level", compression.level}, {"shuffle", compression.shuffle}};
  ojson f = ojson::array(), d = ojson::array();
  for (const auto& s : features) f.push_back(spec_to_json(s));
  for (const auto& s : dataset_arrays) d.push_back(spec_to_json(s));
  j["features"] = f;
  j["dataset_arrays"] = d;
  // Only when present, so that datasets without them keep the identity (and index bytes) they always had.
  if (!text_arrays.empty()) {
    ojson t = ojson::array();
    for (const auto& s : text_arrays) {
      ojson e = spec_to_json(s);
      e["dtype"] = "string";
      t.push_back(e);
    }
    j["text_arrays"] = t;
  }
  if (!inputs.empty()) {
    ojson in = ojson::array();
    for (const auto& i : inputs) in.push_back(ojson{{"file", i.file}, {"bytes", i.bytes}, {"sha256", i.sha256}});
    j["inputs"] = in;
  }
  return j;
}

ojson Index::to_json() const {
  ojson j = identity();
  // The dataset's identity as one hash: what decides its bytes (runs record their data by its shards' checksums).
  const std::string text = identity().dump();
  j["identity_sha256"] = sha256_hex(text.data(), text.size());
  // Provenance that does not change the data: kept out of identity() so a resumed run need not match it.
  j["plugin_abi"] = plugin_abi;
  j["loci_version"] = loci_version;
  j["created"] = created;
  ojson sh = ojson::array();
  for (const auto& s : shards)
    sh.push_back(ojson{{"file", s.file},
                       {"split", s.split},
                       {"first_sample", s.first_sample},
                       {"samples", s.samples},
                       {"bytes", s.bytes},
                       {"sha256", s.sha256}});
  j["shards"] = sh;
  return j;
}

Index Index::from_json(const nlohmann::json& j, const fs::path& file) {
  if (!j.is_object()) throw DataError(file, "not a loci index (expected a JSON object)");
  if (!j.contains("loci_schema_version")) throw DataError(file, "not a loci index (no loci_schema_version)");
  Index x;
  try {
    x.schema_version = whole(j, "loci_schema_version");
  } catch (const std::exception&) {
    throw DataError(file, "loci_schema_version is not an integer");
  }
  if (x.schema_version != kSchemaVersion)
    throw DataError(file, "unknown schema version " + std::to_string(x.schema_version) + " (this loci reads version " +
                              std::to_string(kSchemaVersion) + ")");
  try {
    x.generator = j.at("generator").get<std::string>();
    x.generator_version = j.value("generator_version", "");
    x.loci_version = j.value("loci_version", "");
    x.config_yaml = j.value("config_yaml", "");
    x.created = j.value("created", "");
    x.plugin_abi = whole_or(j, "plugin_abi", std::int64_t{1});
    x.seed = whole<std::uint64_t>(j, "seed");
    x.samples_per_shard = whole_or(j, "samples_per_shard", std::int64_t{0});
    x.chunk_samples = whole_or(j, "chunk_samples", std::int64_t{0});
    if (j.contains("compression")) {
      const auto& c = j.at("compression");
      const auto level = whole_or(c, "level", std::int64_t{4});
      if (level < 0 || level > 9)
        throw std::invalid_argument("compression 'level' " + std::to_string(level) + " is not 0-9");
      x.compression = {c.value("gzip", true), static_cast<int>(level), c.value("shuffle", true)};
    }
    for (const auto& s : j.at("splits")) x.splits.push_back({s.at("name").get<std::string>(), whole(s, "samples")});
    for (const auto& s : j.at("features")) x.features.push_back(spec_from_json(s));
    for (const auto& s : j.value("dataset_arrays", nlohmann::json::array()))
      x.dataset_arrays.push_back(spec_from_json(s));
    for (const auto& s : j.value("text_arrays", nlohmann::json::array())) {
      nlohmann::json e = s;
      if (e.value("dtype", "") != "string")
        throw std::invalid_argument("text array " + e.value("name", "?") + ": dtype is not \"string\"");
      e["dtype"] = dtype_name(DType::u8);
      x.text_arrays.push_back(spec_from_json(e));
    }
    for (const auto& s : j.value("inputs", nlohmann::json::array()))
      x.inputs.push_back({s.at("file").get<std::string>(), whole(s, "bytes"), s.at("sha256").get<std::string>()});
    for (const auto& s : j.value("shards", nlohmann::json::array())) {
      ShardEntry e;
      e.file = s.at("file").get<std::string>();
      e.split = s.at("split").get<std::string>();
      e.first_sample = whole(s, "first_sample");
      e.samples = whole(s, "samples");
      e.bytes = whole(s, "bytes");
      e.sha256 = s.at("sha256").get<std::string>();
      if (e.file.empty() || e.file.find('/') != std::string::npos || e.file[0] == '.')
        throw std::invalid_argument("shard file '" + e.file + "' is not a plain file name");
      x.shards.push_back(std::move(e));
    }
  } catch (const DataError&) {
    throw;
  } catch (const std::exception& e) {
    throw DataError(file, std::string("malformed index: ") + e.what());
  }
  return x;
}

Index Index::load(const fs::path& file) {
  std::ifstream in(file);
  if (!in) throw DataError(file, fs::exists(file) ? "cannot read" : "missing");
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(in);
  } catch (const nlohmann::json::parse_error& e) {
    throw DataError(file, std::string("not valid JSON (") + e.what() + ")");
  }
  return from_json(j, file);
}

std::int64_t Index::samples(const std::string& split) const {
  for (const auto& s : splits)
    if (s.name == split) return s.samples;
  return 0;
}

std::optional<std::string> identity_difference(const ojson& had, const ojson& want) {
  auto shorten = [](const ojson& v) {
    std::string s = v.is_string() ? v.get<std::string>() : v.dump();
    for (char& c : s)
      if (c == '\n') c = ' ';
    return s.size() > 40 ? s.substr(0, 37) + "..." : s;
  };
  for (const auto& [key, value] : want.items()) {
    const auto it = had.find(key);
    if (key == "inputs" && (it == had.end() || *it != value))
      return "the input files (inputs in index.json: their sizes or SHA-256) differ";
    if (it == had.end()) return key + " missing vs " + shorten(value);
    if (*it != value) {
      if (key == "config_yaml" && it->is_string() && value.is_string())
        if (const std::string keys = config_difference(it->get<std::string>(), value.get<std::string>()); !keys.empty())
          return "its configuration differs: " + keys;
      if (key == "config_yaml" || key == "features" || key == "dataset_arrays" || key == "text_arrays")
        return key + " differs";
      return key + " " + shorten(*it) + " vs " + shorten(value);
    }
  }
  return std::nullopt;
}

}  // namespace loci::datasets
