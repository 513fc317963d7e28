#include "plugins/api/config/yaml_io.hpp"

#include <yaml-cpp/yaml.h>

#include <fstream>
#include <set>
#include <sstream>

#include "plugins/api/error.hpp"

namespace loci::config {
namespace fs = std::filesystem;

namespace {

Mark mark_of(const YAML::Mark& m, const std::string& origin) {
  if (m.is_null()) return Mark{origin, 0, 0};
  return Mark{origin, m.line + 1, m.column + 1};
}

Node convert(const YAML::Node& y, const std::string& origin) {
  const Mark mark = mark_of(y.Mark(), origin);
  switch (y.Type()) {
    case YAML::NodeType::Undefined:
    case YAML::NodeType::Null:
    {
      Node n;
      n.set_mark(mark);
      return n;
    }
    case YAML::NodeType::Scalar:
      // yaml-cpp tags plain scalars "?" and quoted ones "!": a quoted "1" stays a string.
      return Node::scalar(y.Scalar(), mark, y.Tag() == "!");
    case YAML::NodeType::Sequence: {
      Node seq = Node::sequence(mark);
      for (const auto& item : y) seq.push_back(convert(item, origin));
      return seq;
    }
    case YAML::NodeType::Map: {
      Node map = Node::map(mark);
      for (const auto& kv : y) {
        if (!kv.first.IsScalar())
          throw UserError(mark_of(kv.first.Mark(), origin).str() + ": a key must be a plain name");
        const std::string key = kv.first.Scalar();
        if (map.find(key))
          throw UserError(mark_of(kv.first.Mark(), origin).str() + ": duplicate key '" + key + "'");
        Node value = convert(kv.second, origin);
        value.set_key_mark(mark_of(kv.first.Mark(), origin));
        if (value.is_null()) value.set_mark(mark_of(kv.first.Mark(), origin));
        map.set(key, std::move(value));
      }
      return map;
    }
  }
  return Node();
}

std::string read_text(const fs::path& path, const std::string& who) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    std::error_code ec;
    if (!fs::exists(path, ec)) throw UserError(who + "no such file: " + path.string());
    throw UserError(who + "cannot read " + path.string());
  }
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

Node load_recursive(const fs::path& path, std::vector<fs::path>& stack, const std::string& who);

// Merges the files named by `own`'s `include:` key (relative to `base_dir`) under `own`'s other keys.
Node merge_includes(Node own, const fs::path& base_dir, std::vector<fs::path>& stack) {
  Node result = Node::map(own.mark());
  if (const Node* inc = own.find("include")) {
    std::vector<const Node*> paths;
    if (inc->is_scalar()) paths.push_back(inc);
    else if (inc->is_sequence())
      for (const auto& item : inc->items()) paths.push_back(&item);
    else
      throw UserError(inc->mark().str() + ": 'include' takes a file name or a list of file names");
    for (const Node* p : paths) {
      if (!p->is_scalar()) throw UserError(p->mark().str() + ": 'include' entries must be file names");
      fs::path target = p->text();
      if (target.is_relative()) target = base_dir / target;
      merge(result, load_recursive(target, stack, p->mark().str() + ": "));
    }
    own.erase("include");
  }
  if (!own.entries().empty()) merge(result, own);  // a file of includes alone adds nothing of its own
  return result;
}

Node load_recursive(const fs::path& path, std::vector<fs::path>& stack, const std::string& who) {
  const fs::path canonical = fs::weakly_canonical(path);
  for (const auto& p : stack)
    if (p == canonical) throw UserError(who + "include cycle: " + path.string() + " includes itself");
  stack.push_back(canonical);

  Node own = parse_yaml(read_text(path, who), path.string());
  if (own.is_null()) own = Node::map(Mark{path.string(), 1, 1});
  if (!own.is_map()) throw UserError(own.mark().str() + ": a config file must be a mapping of keys to values");
  Node result = merge_includes(std::move(own), path.parent_path(), stack);
  stack.pop_back();
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
      if (n.quoted() && looks_typed) out << YAML::DoubleQuoted << n.text();
      else out << n.text();
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
    return convert(YAML::Load(text), origin);
  } catch (const YAML::Exception& e) {
    throw UserError(mark_of(e.mark, origin).str() + ": invalid YAML: " + e.msg);
  }
}

Node load_file(const fs::path& path) {
  std::vector<fs::path> stack;
  return load_recursive(path, stack, "");
}

Node resolve_includes(const Node& node, const fs::path& base_dir) {
  if (!node.is_map() || !node.find("include")) return node;
  std::vector<fs::path> stack;
  return merge_includes(node, base_dir, stack);
}

void merge(Node& base, const Node& over) {
  // An empty mapping clears what it overrides (`imports: {}`); any other mapping merges key by key.
  if (base.is_map() && over.is_map() && !over.entries().empty()) {
    for (const auto& [k, v] : over.entries()) {
      if (Node* existing = base.find(k); existing && existing->is_map() && v.is_map()) merge(*existing, v);
      else base.set(k, v);
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
