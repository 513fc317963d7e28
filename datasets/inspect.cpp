#include "datasets/inspect.hpp"

#include <algorithm>
#include <cinttypes>
#include <cstring>
#include <sstream>

#include "datasets/reader.hpp"

namespace loci::datasets {

SampleSlots SampleValues::slots() const {
  std::vector<void*> pointers;
  for (const auto& d : data) pointers.push_back(const_cast<std::uint8_t*>(d.data()));
  return SampleSlots(&arrays, std::move(pointers));
}

namespace {

std::string value_at(DType t, const std::uint8_t* p) {
  auto get = [p](auto v) {
    std::memcpy(&v, p, sizeof v);
    return v;
  };
  char buf[48];
  switch (t) {
    case DType::u8:
      return std::to_string(get(std::uint8_t{}));
    case DType::i8:
      return std::to_string(get(std::int8_t{}));
    case DType::u16:
      return std::to_string(get(std::uint16_t{}));
    case DType::i16:
      return std::to_string(get(std::int16_t{}));
    case DType::u32:
      return std::to_string(get(std::uint32_t{}));
    case DType::i32:
      return std::to_string(get(std::int32_t{}));
    case DType::u64:
      return std::to_string(get(std::uint64_t{}));
    case DType::i64:
      return std::to_string(get(std::int64_t{}));
    case DType::f32:
      std::snprintf(buf, sizeof buf, "%.6g", static_cast<double>(get(float{})));
      return buf;
    case DType::f64:
      std::snprintf(buf, sizeof buf, "%.6g", get(double{}));
      return buf;
  }
  return "?";
}

std::string attribute_text(const AttrValue& v) {
  if (auto* i = std::get_if<std::int64_t>(&v)) return std::to_string(*i);
  if (auto* d = std::get_if<double>(&v)) {
    std::ostringstream o;
    o << *d;
    return o.str();
  }
  std::string s = std::get<std::string>(v);
  const bool multiline = s.find('\n') != std::string::npos;
  if (multiline) s = s.substr(0, s.find('\n')) + " …";
  return s.size() > 72 ? s.substr(0, 69) + "..." : s;
}

void pad(std::ostream& o, const std::string& s, std::size_t width) {
  o << s << std::string(width > s.size() ? width - s.size() : 1, ' ');
}

}  // namespace

std::string format_values(const ArraySpec& a, const std::uint8_t* data, std::size_t max_values) {
  const std::size_t n = static_cast<std::size_t>(a.elements()), size = dtype_size(a.dtype);
  if (a.shape.empty()) return value_at(a.dtype, data);
  std::string s;
  std::size_t shown = 0;
  // Walks the flat values, opening and closing brackets where an index rolls over, numpy style.
  std::vector<std::int64_t> idx(a.shape.size(), 0);
  for (std::size_t k = 0; k < n; ++k) {
    std::size_t opened = 0;
    for (std::size_t d = a.shape.size(); d-- > 0;) {
      if (idx[d] != 0) break;
      ++opened;
    }
    if (k > 0) s += ", ";
    s += std::string(opened, '[');
    if (shown++ == max_values) {
      s += "…";
      s += std::string(a.shape.size(), ']');
      return s;
    }
    s += value_at(a.dtype, data + k * size);
    std::size_t closed = 0;
    for (std::size_t d = a.shape.size(); d-- > 0;) {
      if (++idx[d] < a.shape[d]) break;
      idx[d] = 0;
      ++closed;
    }
    s += std::string(closed, ']');
  }
  return s;
}

namespace {

void describe_splits(std::ostream& o, const Index& x) {
  o << "\nsplits\n";
  for (const auto& s : x.splits) {
    const auto shards =
        std::count_if(x.shards.begin(), x.shards.end(), [&](const ShardEntry& e) { return e.split == s.name; });
    o << "  ";
    pad(o, s.name, 12);
    o << s.samples << " samples in " << shards << (shards == 1 ? " shard" : " shards") << "\n";
  }
}

void describe_arrays(std::ostream& o, const Dataset& ds) {
  std::size_t width = 10;
  for (const auto* list : {&ds.arrays(), &ds.dataset_arrays()})
    for (const auto& a : *list) width = std::max(width, a.name.size() + 2);
  auto line = [&](const auto& a) {
    o << "  ";
    pad(o, a.name, width);
    o << describe_type(a) << (a.doc.empty() ? "" : "  " + a.doc) << "\n";
  };
  o << "\nper-sample arrays\n  ";
  pad(o, "sample_id", width);
  o << "int64 [sample]  index of each sample within its split\n";
  for (const auto& a : ds.arrays()) line(a);
  if (!ds.dataset_arrays().empty()) o << "\ndataset arrays\n";
  for (const auto& a : ds.dataset_arrays()) line(a);
  for (const auto& t : ds.index().text_arrays) {
    const auto values = ds.read_text(t.name);
    std::string first;
    for (std::size_t i = 0; i < values.size() && i < 3; ++i) first += (i ? ", " : "") + values[i];
    o << "  ";
    pad(o, t.name, width);
    o << "string [" << t.dims[0] << " " << t.shape[0] << "]  " << t.doc
      << (values.size() > 3 ? " (" + first + ", ...)" : " (" + first + ")") << "\n";
  }
}

void describe_attributes(std::ostream& o, const Dataset& ds) {
  o << (ds.is_folder() ? "\nattributes (of the first shard)\n" : "\nattributes\n");
  const Attributes attrs = ds.attributes();
  std::size_t key_width = 8;
  for (const auto& [k, v] : attrs) key_width = std::max(key_width, k.size() + 2);
  for (const auto& [k, v] : attrs) {
    if (k == "config_yaml") continue;
    o << "  ";
    pad(o, k, key_width);
    o << attribute_text(v) << "\n";
  }
  o << "\nconfig\n";
  std::istringstream yaml(ds.index().config_yaml);
  for (std::string line; std::getline(yaml, line);) o << "  " << line << "\n";
}

void describe_verification(std::ostream& o, const Dataset& ds) {
  const VerifyReport r = ds.verify();
  o << "\nverify\n  " << r.shards << (r.shards == 1 ? " shard, " : " shards, ") << r.bytes << " bytes: "
    << (r.checksums ? "every SHA-256 matches index.json" : "every array reads back (a lone shard has no checksum)")
    << "\n";
}

// The first `show` samples of each split, as the generator formats them (or every array's values).
void describe_samples(std::ostream& o, const Dataset& ds, const InspectOptions& options) {
  for (const auto& split : ds.splits()) {
    const std::int64_t n = std::min(options.show, ds.samples(split));
    if (n == 0) continue;
    o << "\nsamples (" << split << ", first " << n << ")\n";
    SampleValues v;
    v.split = split;
    for (const auto& a : ds.arrays()) v.arrays.push_back(a.spec());
    v.data.resize(v.arrays.size());
    for (std::int64_t i = 0; i < n; ++i) {
      v.index = i;
      for (std::size_t k = 0; k < v.arrays.size(); ++k) {
        v.data[k].resize(v.arrays[k].bytes());
        ds.read(split, v.arrays[k].name, i, 1, v.data[k].data(), v.arrays[k].dtype);
      }
      std::string text = options.format_sample ? options.format_sample(v) : "";
      if (text.empty()) {
        for (std::size_t k = 0; k < v.arrays.size(); ++k)
          text += (k ? "  " : "") + v.arrays[k].name + "=" + format_values(v.arrays[k], v.data[k].data());
      }
      o << "  #" << i << "  " << text << "\n";
    }
  }
}

}  // namespace

std::string describe(const std::filesystem::path& path, const InspectOptions& options) {
  const Dataset ds = Dataset::open(path);
  const Index& x = ds.index();
  std::ostringstream o;
  o << (ds.is_folder() ? "dataset " : "shard ") << path.string() << "\n";
  o << "  schema " << x.schema_version << ", generator " << (x.generator.empty() ? "?" : x.generator) << " "
    << x.generator_version << ", seed " << x.seed << (x.created.empty() ? "" : ", created " + x.created) << "\n";
  describe_splits(o, x);
  describe_arrays(o, ds);
  describe_attributes(o, ds);
  if (options.verify) describe_verification(o, ds);
  if (options.show > 0) describe_samples(o, ds, options);
  return o.str();
}

}  // namespace loci::datasets
