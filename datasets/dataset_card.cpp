#include "datasets/dataset_card.hpp"

#include <algorithm>
#include <sstream>

namespace loci::datasets {

namespace {

// A JSON string is a valid YAML double-quoted scalar, so quoting through JSON is safe for any text.
std::string quoted(const std::string& s) { return nlohmann::json(s).dump(); }

std::string flow_list(const std::vector<std::string>& items) {
  std::string s = "[";
  for (std::size_t i = 0; i < items.size(); ++i) s += (i ? ", " : "") + items[i];
  return s + "]";
}

std::string flow_list(const std::vector<std::int64_t>& items) {
  std::vector<std::string> t;
  for (auto v : items) t.push_back(std::to_string(v));
  return flow_list(t);
}

// Shapes and dims are per example, as Hugging Face's features are; `per_sample` says the file adds a leading
// "sample" axis.
void feature_yaml(std::ostringstream& o, const ArraySpec& s, bool per_sample, const char* dtype = nullptr) {
  const std::vector<std::string>& dims = s.dims;
  o << "  - name: " << s.name << "\n"
    << "    dtype: " << (dtype ? dtype : dtype_name(s.dtype)) << "\n"
    << "    shape: " << flow_list(s.shape) << "\n"
    << "    dims: " << flow_list(dims) << "\n"
    << "    per_sample: " << (per_sample ? "true" : "false") << "\n";
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
  o << "---\n"
    << "pretty_name: " << quoted(pretty) << "\n"
    << "license: " << text.license << "\n"
    << "size_categories:\n- " << size_category(total) << "\n"
    << "tags:\n- synthetic\n- loci\n" << (x.generator == "synthetic" || x.generator == "loci" ? "" : "- " + x.generator + "\n")
    << "dataset_info:\n"
    << "  features:\n";
  for (const auto& f : x.features) feature_yaml(o, f, true);
  for (const auto& f : x.dataset_arrays) feature_yaml(o, f, false);
  for (const auto& f : x.text_arrays) feature_yaml(o, f, false, "string");
  o << "  splits:\n";
  for (const auto& s : x.splits) {
    std::int64_t bytes = 0;
    for (const auto& sh : x.shards)
      if (sh.split == s.name) bytes += sh.bytes;
    o << "  - name: " << s.name << "\n    num_examples: " << s.samples << "\n    num_bytes: " << bytes << "\n";
  }
  o << "loci:\n"
    << "  generator: " << quoted(x.generator) << "\n"
    << "  generator_version: " << quoted(x.generator_version) << "\n"
    << "  seed: " << x.seed << "\n"
    << "  schema_version: " << x.schema_version << "\n"
    << "---\n\n";

  o << "# " << pretty << "\n\n";
  if (!text.prose.empty()) o << text.prose << (text.prose.back() == '\n' ? "" : "\n") << "\n";
  o << "## Arrays\n\nEach shard is an HDF5 file whose first axis is the sample; every dimension is named (HDF5 dimension "
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
    o << "\n## Inputs\n\nThe samples were made from these files (also in `index.json`; a `--resume` after one changed is "
         "refused):\n\n| file | bytes | SHA-256 |\n|---|---:|---|\n";
    for (const auto& i : x.inputs) o << "| `" << i.file << "` | " << i.bytes << " | `" << i.sha256 << "` |\n";
  }
  if (!text.regenerate_command.empty())
    o << "\n## Regenerate\n\nThe same command and seed give the same samples:\n\n```sh\n" << text.regenerate_command
      << "\n```\n";
  o << "\n## Configuration\n\nThe resolved configuration (also the root attribute `config_yaml` of every shard):\n\n"
    << "```yaml\n" << x.config_yaml << (x.config_yaml.empty() || x.config_yaml.back() == '\n' ? "" : "\n") << "```\n";
  return o.str();
}

std::string card_literal(const std::string& text) {
  std::string out;
  for (char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '\\': case '`': case '*': case '[': case ']': case '|':
        out += '\\';
        out += c;
        break;
      case '\n': case '\r': out += ' '; break;
      default: out += c;
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
