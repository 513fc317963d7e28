#include "datasets/dataset_card.hpp"

#include <algorithm>
#include <sstream>

#include <yaml-cpp/yaml.h>

namespace loci::datasets {

namespace {

// Shapes and dims are per example, as Hugging Face's features are; `per_sample` says the file adds a leading
// "sample" axis.
void feature_yaml(YAML::Emitter& y, const ArraySpec& s, bool per_sample, const char* dtype = nullptr) {
  y << YAML::BeginMap << YAML::Key << "name" << YAML::Value << s.name << YAML::Key << "dtype" << YAML::Value
    << (dtype ? dtype : dtype_name(s.dtype)) << YAML::Key << "shape" << YAML::Value << YAML::Flow << s.shape
    << YAML::Key << "dims" << YAML::Value << YAML::Flow << s.dims << YAML::Key << "per_sample" << YAML::Value
    << per_sample << YAML::EndMap;
}

// The card's front matter through yaml-cpp's emitter, so that every value (a licence, a name) stays one scalar
// whatever it holds: a line break or "---" in it is quoted, never the end of the header.
std::string front_matter(const Index& x, const CardText& text, const std::string& pretty, std::int64_t total) {
  YAML::Emitter y;
  y << YAML::BeginMap;
  y << YAML::Key << "pretty_name" << YAML::Value << YAML::DoubleQuoted << pretty;
  y << YAML::Key << "license" << YAML::Value << text.license;
  y << YAML::Key << "size_categories" << YAML::Value << YAML::BeginSeq << size_category(total) << YAML::EndSeq;
  std::vector<std::string> tags{"synthetic", "loci"};
  if (x.generator != "synthetic" && x.generator != "loci") tags.push_back(x.generator);
  y << YAML::Key << "tags" << YAML::Value << tags;
  y << YAML::Key << "dataset_info" << YAML::Value << YAML::BeginMap << YAML::Key << "features" << YAML::Value
    << YAML::BeginSeq;
  for (const auto& f : x.features) feature_yaml(y, f, true);
  for (const auto& f : x.dataset_arrays) feature_yaml(y, f, false);
  for (const auto& f : x.text_arrays) feature_yaml(y, f, false, "string");
  y << YAML::EndSeq << YAML::Key << "splits" << YAML::Value << YAML::BeginSeq;
  for (const auto& s : x.splits) {
    std::int64_t bytes = 0;
    for (const auto& sh : x.shards)
      if (sh.split == s.name) bytes += sh.bytes;
    y << YAML::BeginMap << YAML::Key << "name" << YAML::Value << s.name << YAML::Key << "num_examples" << YAML::Value
      << s.samples << YAML::Key << "num_bytes" << YAML::Value << bytes << YAML::EndMap;
  }
  y << YAML::EndSeq << YAML::EndMap;
  y << YAML::Key << "loci" << YAML::Value << YAML::BeginMap << YAML::Key << "generator" << YAML::Value
    << YAML::DoubleQuoted << x.generator << YAML::Key << "generator_version" << YAML::Value << YAML::DoubleQuoted
    << x.generator_version << YAML::Key << "seed" << YAML::Value << x.seed << YAML::Key << "schema_version"
    << YAML::Value << x.schema_version << YAML::EndMap;
  y << YAML::EndMap;
  return "---\n" + std::string(y.c_str()) + "\n---\n\n";
}

std::string dims_text(const ArraySpec& s, bool per_sample) {
  std::string t = per_sample ? "sample" : "";
  for (std::size_t i = 0; i < s.dims.size(); ++i)
    t += (t.empty() ? "" : " × ") + s.dims[i] + " " + std::to_string(s.shape[i]);
  return t.empty() ? "scalar" : t;
}

}  // namespace

std::string size_category(std::int64_t n) {
  static const char* names[] = {"n<1K", "1K<n<10K", "10K<n<100K", "100K<n<1M", "1M<n<10M", "10M<n<100M", "100M<n<1B"};
  std::int64_t limit = 1000;
  for (const char* name : names) {
    if (n < limit) return name;
    limit *= 10;
  }
  return "n>1B";
}

std::string dataset_card(const Index& x, const CardText& text) {
  std::int64_t total = 0;
  for (const auto& s : x.splits) total += s.samples;
  const std::string pretty = text.pretty_name.empty() ? x.generator : text.pretty_name;

  std::ostringstream o;
  o << front_matter(x, text, pretty, total);

  o << "# " << pretty << "\n\n";
  if (!text.prose.empty()) o << text.prose << (text.prose.back() == '\n' ? "" : "\n") << "\n";
  o << "## Arrays\n\nEach shard is an HDF5 file whose first axis is the sample; every dimension is named (HDF5 "
       "dimension "
       "scales), so `xarray.open_dataset(shard, engine=\"h5netcdf\")` and `h5py` both read it.\n\n"
    << "| array | dtype | dims | meaning |\n|---|---|---|---|\n";
  o << "| `sample_id` | int64 | sample | index of each sample within its split |\n";
  for (const auto& f : x.features)
    o << "| `" << f.name << "` | " << dtype_name(f.dtype) << " | " << dims_text(f, true) << " | " << f.doc << " |\n";
  for (const auto& f : x.dataset_arrays)
    o << "| `" << f.name << "` | " << dtype_name(f.dtype) << " | " << dims_text(f, false) << " | " << f.doc << " |\n";
  for (const auto& f : x.text_arrays)
    o << "| `" << f.name << "` | string (UTF-8) | " << dims_text(f, false) << " | " << f.doc << " |\n";
  o << "\n## Splits\n\n| split | samples | shards |\n|---|---|---|\n";
  for (const auto& s : x.splits) {
    int shards = 0;
    for (const auto& sh : x.shards) shards += sh.split == s.name;
    o << "| " << s.name << " | " << s.samples << " | " << shards << " |\n";
  }
  o << "\nShard files, sizes and SHA-256 checksums are listed in `index.json`; `loci inspect <folder> --verify` checks "
       "them.\n";
  if (!x.inputs.empty()) {
    o << "\n## Inputs\n\nThe samples were made from these files (also in `index.json`; a `--resume` after one changed "
         "is "
         "refused):\n\n| file | bytes | SHA-256 |\n|---|---:|---|\n";
    for (const auto& i : x.inputs) o << "| `" << i.file << "` | " << i.bytes << " | `" << i.sha256 << "` |\n";
  }
  if (!text.regenerate_command.empty())
    o << "\n## Regenerate\n\nThe same command and seed give the same samples:\n\n```sh\n"
      << text.regenerate_command << "\n```\n";
  o << "\n## Configuration\n\nThe resolved configuration (also the root attribute `config_yaml` of every shard):\n\n"
    << "```yaml\n"
    << x.config_yaml << (x.config_yaml.empty() || x.config_yaml.back() == '\n' ? "" : "\n") << "```\n";
  return o.str();
}

std::string card_literal(const std::string& text) {
  std::string out;
  for (char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '\\':
      case '`':
      case '*':
      case '[':
      case ']':
      case '|':
        out += '\\';
        out += c;
        break;
      case '\n':
      case '\r':
        out += ' ';
        break;
      default:
        out += c;
    }
  }
  return out;
}

std::string card_code(const std::string& text) {
  std::size_t longest = 0, run = 0;
  for (char c : text) longest = std::max(longest, run = c == '`' ? run + 1 : 0);
  const std::string fence(longest + 1, '`');
  const std::string pad = !text.empty() && (text.front() == '`' || text.back() == '`') ? " " : "";
  std::string flat = text;
  for (char& c : flat)
    if (c == '\n' || c == '\r') c = ' ';
  return fence + pad + flat + pad + fence;
}

}  // namespace loci::datasets
