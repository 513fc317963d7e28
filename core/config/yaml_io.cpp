#include "core/config/yaml_io.hpp"

#include <yaml-cpp/yaml.h>

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <unordered_set>

#include "core/config/fail_at.hpp"
#include "core/error.hpp"
#include "core/printable.hpp"

namespace loci::config {
namespace fs = std::filesystem;

namespace {

Mark mark_of(const YAML::Mark& m, const std::string& origin) {
  if (m.is_null()) return Mark{origin, 0, 0};
  return Mark{origin, m.line + 1, m.column + 1};
}

// What one document may expand to. yaml-cpp resolves aliases into shared nodes, so `&a [*a]` is a node that
// contains itself and nine nested lists of aliases expand to billions of nodes: both are refused here, before they
// exhaust the stack or the memory.
struct Budget {
  static constexpr int kMaxDepth = 100;
  static constexpr std::size_t kMaxNodes = 1000000;
  static constexpr std::size_t kMaxBytes = 64u << 20;
  std::vector<YAML::Node> ancestors;
  std::size_t nodes = 0, bytes = 0;
};

Node convert(const YAML::Node& y, const std::string& origin, Budget& budget);

Node convert_checked(const YAML::Node& y, const std::string& origin, Budget& budget) {
  const Mark mark = mark_of(y.Mark(), origin);
  for (const auto& a : budget.ancestors)
    if (a.is(y)) throw UserError(mark.str() + ": a recursive alias (a node that contains itself) cannot be read");
  if (static_cast<int>(budget.ancestors.size()) >= Budget::kMaxDepth)
    throw UserError(mark.str() + ": nested deeper than " + std::to_string(Budget::kMaxDepth) + " levels");
  if (++budget.nodes > Budget::kMaxNodes)
    throw UserError(mark.str() + ": expands to more than " + std::to_string(Budget::kMaxNodes) +
                    " values (aliases repeated inside aliases?)");
  // Every value keeps its text and the name of its file (for messages): both count, so that an alias bomb read
  // through a long include path is as bounded as one with long scalars.
  budget.bytes += origin.size() + (y.IsScalar() ? y.Scalar().size() : 0);
  if (budget.bytes > Budget::kMaxBytes)
    throw UserError(mark.str() + ": expands to more than 64 MiB of text (aliases repeated inside aliases?)");
  budget.ancestors.push_back(y);
  Node n = convert(y, origin, budget);
  budget.ancestors.pop_back();
  return n;
}

Node convert(const YAML::Node& y, const std::string& origin, Budget& budget) {
  const Mark mark = mark_of(y.Mark(), origin);
  switch (y.Type()) {
    case YAML::NodeType::Undefined:
    case YAML::NodeType::Null: {
      Node n;
      n.set_mark(mark);
      return n;
    }
    case YAML::NodeType::Scalar:
      // Every value ends up in a JSON record (identity, summary, sweep.json), and JSON holds only UTF-8 text.
      if (!is_utf8(y.Scalar()))
        throw UserError(mark.str() + ": '" + printable(y.Scalar(), 60) +
                        "' is not UTF-8 text; loci's records (JSON) hold only text");
      // yaml-cpp tags plain scalars "?" and quoted ones "!": a quoted "1" stays a string.
      return Node::scalar(y.Scalar(), mark, y.Tag() == "!");
    case YAML::NodeType::Sequence: {
      Node seq = Node::sequence(mark);
      for (const auto& item : y) seq.push_back(convert_checked(item, origin, budget));
      return seq;
    }
    case YAML::NodeType::Map: {
      Node map = Node::map(mark);
      std::unordered_set<std::string> keys;  // linear in the keys: a map of 100 000 keys reads in well under a second
      for (const auto& kv : y) {
        if (!kv.first.IsScalar())
          throw UserError(mark_of(kv.first.Mark(), origin).str() + ": a key must be a plain name");
        const std::string key = kv.first.Scalar();
        if (!is_utf8(key))
          throw UserError(mark_of(kv.first.Mark(), origin).str() + ": key '" + printable(key, 60) +
                          "' is not UTF-8 text");
        if (!keys.insert(key).second)
          throw UserError(mark_of(kv.first.Mark(), origin).str() + ": duplicate key '" + printable(key) + "'");
        Node value = convert_checked(kv.second, origin, budget);
        value.set_key_mark(mark_of(kv.first.Mark(), origin));
        if (value.is_null()) value.set_mark(mark_of(kv.first.Mark(), origin));
        map.append(key, std::move(value));
      }
      return map;
    }
  }
  return Node();
}

std::string cut(const std::string& text) {
  return text.size() > 200 ? text.substr(0, 160) + "... (" + std::to_string(text.size()) + " characters)" : text;
}

// Configs are small regular files: a folder, a FIFO, a device (/dev/zero) or a huge file is refused by name.
std::string read_text(const fs::path& path, const std::string& who) {
  constexpr std::uintmax_t kMaxConfigBytes = 16u << 20;
  std::error_code ec;
  const auto status = fs::status(path, ec);
  if (!ec && fs::exists(status) && !fs::is_regular_file(status))
    throw UserError(who + cut(path.string()) + " is not a regular file (a config must be one)");
  if (!ec && fs::is_regular_file(status) && fs::file_size(path, ec) > kMaxConfigBytes)
    throw UserError(who + cut(path.string()) + " is larger than 16 MiB, too large for a config");
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) {
    if (!fs::exists(path, ec)) throw UserError(who + "no such file: " + cut(path.string()));
    throw UserError(who + "cannot read " + cut(path.string()) + " (" + std::strerror(errno) + ")");
  }
  std::string text;
  char buf[65536];
  for (;;) {
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n == 0) break;
    if (n < 0) {
      if (errno == EINTR) continue;
      const int err = errno;
      ::close(fd);
      throw UserError(who + "cannot read " + cut(path.string()) + " (" + std::strerror(err) + ")");
    }
    text.append(buf, static_cast<std::size_t>(n));
    if (text.size() > kMaxConfigBytes) {
      ::close(fd);
      throw UserError(who + cut(path.string()) + " is larger than 16 MiB, too large for a config");
    }
  }
  ::close(fd);
  return text;
}

// What one load has read: the chain of files including each other (for cycles), every file already resolved (an
// include met again is merged from here, not read and resolved again: 31 files each including the next twice cost
// 31 loads, not 2^31), and how many includes were followed, bounded so that no config makes loading unbounded work.
struct LoadState {
  std::vector<fs::path> stack;
  std::map<fs::path, Node> resolved;
  std::size_t includes = 0;
};

constexpr std::size_t kMaxIncludes = 1000;

Node load_recursive(const fs::path& path, LoadState& state, const std::string& who);

// Merges the files named by `own`'s `include:` key (each relative to the file that wrote it; see folder_of) under
// `own`'s other keys. A file named twice in one list is merged once: a second merge of the same keys changes nothing.
Node merge_includes(Node own, const fs::path& base_dir, LoadState& state) {
  Node result = Node::map(own.mark());
  if (const Node* inc = own.find("include")) {
    std::vector<const Node*> paths;
    if (inc->is_scalar())
      paths.push_back(inc);
    else if (inc->is_sequence())
      for (const auto& item : inc->items()) paths.push_back(&item);
    else
      throw UserError(inc->mark().str() + ": 'include' takes a file name or a list of file names");
    std::vector<fs::path> merged;
    for (const Node* p : paths) {
      if (!p->is_scalar()) throw UserError(p->mark().str() + ": 'include' entries must be file names");
      fs::path target = p->text();
      if (target.is_relative()) target = folder_of(*p, base_dir) / target;
      std::error_code ec;
      const fs::path canonical = fs::weakly_canonical(target, ec);
      if (!ec && std::find(merged.begin(), merged.end(), canonical) != merged.end()) continue;
      if (++state.includes > kMaxIncludes)
        throw UserError(p->mark().str() + ": more than " + std::to_string(kMaxIncludes) +
                        " includes in one config; a config's includes must be a short list");
      merge(result, load_recursive(target, state, p->mark().str() + ": "));
      if (!ec) merged.push_back(canonical);
    }
    own.erase("include");
  }
  if (!own.entries().empty()) merge(result, own);  // a file of includes alone adds nothing of its own
  return result;
}

Node load_recursive(const fs::path& path, LoadState& state, const std::string& who) {
  std::error_code ec;
  fs::path canonical = fs::weakly_canonical(path, ec);
  if (ec) canonical = path;  // a name the system cannot resolve (too long, say) fails below with its own line
  for (const auto& p : state.stack)
    if (p == canonical) throw UserError(who + "include cycle: " + path.string() + " includes itself");
  if (const auto done = state.resolved.find(canonical); done != state.resolved.end()) return done->second;
  state.stack.push_back(canonical);

  Node own = parse_yaml(read_text(path, who), path.string());
  if (own.is_null()) own = Node::map(Mark{path.string(), 1, 1});
  if (!own.is_map()) fail_at(own.mark(), "a config file must be a mapping of keys to values");
  Node result = merge_includes(std::move(own), path.parent_path(), state);
  state.stack.pop_back();
  state.resolved.emplace(canonical, result);
  return result;
}

void emit(YAML::Emitter& out, const Node& n) {
  switch (n.kind()) {
    case Node::Kind::null:
      out << YAML::Null;
      break;
    case Node::Kind::scalar: {
      // Would this text read back as something other than a string? Then it must stay quoted.
      const Node plain = Node::scalar(n.text());
      const bool looks_typed = plain.to_double() || plain.to_bool() || n.text().empty() || n.text() == "null" ||
                               n.text() == "~" || n.text() == "Null" || n.text() == "NULL";
      if (n.quoted() && looks_typed)
        out << YAML::DoubleQuoted << n.text();
      else
        out << n.text();
      break;
    }
    case Node::Kind::sequence: {
      bool flat = true;
      for (const auto& item : n.items()) flat = flat && item.is_scalar();
      if (flat) out << YAML::Flow;
      out << YAML::BeginSeq;
      for (const auto& item : n.items()) emit(out, item);
      out << YAML::EndSeq;
      break;
    }
    case Node::Kind::map:
      if (n.entries().empty()) out << YAML::Flow;
      out << YAML::BeginMap;
      for (const auto& [k, v] : n.entries()) {
        out << YAML::Key << k << YAML::Value;
        emit(out, v);
      }
      out << YAML::EndMap;
      break;
  }
}

}  // namespace

Node parse_yaml(const std::string& text, const std::string& origin) {
  try {
    Budget budget;
    return convert_checked(YAML::Load(text), origin, budget);
  } catch (const YAML::Exception& e) {
    throw UserError(mark_of(e.mark, origin).str() + ": invalid YAML: " + printable(e.msg));
  }
}

Node load_file(const fs::path& path) {
  LoadState state;
  return load_recursive(path, state, "");
}

Node resolve_includes(const Node& node, const fs::path& base_dir) {
  if (!node.is_map() || !node.find("include")) return node;
  LoadState state;
  return merge_includes(node, base_dir, state);
}

fs::path folder_of(const Node& value, const fs::path& fallback) {
  return value.mark().line > 0 ? fs::path(value.mark().file).parent_path() : fallback;
}

void merge(Node& base, const Node& over) {
  // An empty mapping clears what it overrides (`imports: {}`); any other mapping merges key by key.
  if (base.is_map() && over.is_map() && !over.entries().empty()) {
    for (const auto& [k, v] : over.entries()) {
      if (Node* existing = base.find(k); existing && existing->is_map() && v.is_map())
        merge(*existing, v);
      else
        base.set(k, v);
    }
    return;
  }
  base = over;
}

std::string to_yaml(const Node& node) {
  YAML::Emitter out;
  out.SetIndent(2);
  emit(out, node);
  std::string s = out.c_str();
  if (!s.empty() && s.back() != '\n') s += '\n';
  return s;
}

}  // namespace loci::config
