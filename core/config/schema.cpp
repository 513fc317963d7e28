#include "core/config/schema.hpp"

#include <cctype>

#include <algorithm>
#include <cmath>
#include <sstream>

#include "core/config/fail_at.hpp"
#include "core/config/overrides.hpp"
#include "core/config/yaml_io.hpp"
#include "core/error.hpp"

namespace loci::config {

struct Schema::Entry {
  bool is_field = false;
  // Field.
  Type type = Type::any;
  Type element = Type::any;  // for list and map
  std::optional<Node> default_value;
  std::optional<double> min, max;
  std::vector<std::string> choices;
  std::string doc;
  bool required = false;
  bool nullable = false;
  bool identity = true;
  // Group.
  std::vector<std::pair<std::string, std::shared_ptr<Entry>>> children;

  std::shared_ptr<Entry> child(const std::string& name) const {
    for (const auto& [k, v] : children)
      if (k == name) return v;
    return nullptr;
  }
  std::vector<std::string> child_names() const {
    std::vector<std::string> out;
    for (const auto& c : children) out.push_back(c.first);
    return out;
  }
};

namespace {

using Type = Schema::Type;
using Entry = Schema::Entry;

Type parse_type(const Node& n) {
  static const std::pair<const char*, Type> names[] = {
      {"bool", Type::boolean},  {"int", Type::integer}, {"float", Type::number},
      {"string", Type::string}, {"path", Type::path},   {"enum", Type::enumeration},
      {"list", Type::list},     {"map", Type::map},     {"any", Type::any}};
  for (const auto& [name, t] : names)
    if (n.text() == name) return t;
  fail_at(n.mark(), "unknown schema type '" + n.text() + "'");
}

const char* type_name(Type t) {
  switch (t) {
    case Type::boolean:
      return "bool";
    case Type::integer:
      return "int";
    case Type::number:
      return "float";
    case Type::string:
      return "string";
    case Type::path:
      return "path";
    case Type::enumeration:
      return "enum";
    case Type::list:
      return "list";
    case Type::map:
      return "map";
    case Type::any:
      return "any";
  }
  return "?";
}

bool is_field_spec(const Node& n) {
  if (!n.is_map()) return false;
  const Node* t = n.find("type");
  return t && t->is_scalar();
}

// A default has no position in anything a user wrote: its marks are cleared, so that a resolved value with a position
// is one a config file or the command line gave.
void forget_position(Node& n) {
  n.set_mark({});
  n.set_key_mark({});
  for (auto& item : n.items()) forget_position(item);
  for (auto& e : n.entries()) forget_position(e.second);
}

std::shared_ptr<Entry> parse_entry(const Node& n) {
  auto e = std::make_shared<Entry>();
  if (is_field_spec(n)) {
    e->is_field = true;
    e->type = parse_type(*n.find("type"));
    for (const auto& [k, v] : n.entries()) {
      if (k == "type") continue;
      if (k == "default")
        forget_position(e->default_value.emplace(v));
      else if (k == "min")
        e->min = v.as_double();
      else if (k == "max")
        e->max = v.as_double();
      else if (k == "doc")
        e->doc = v.as_string();
      else if (k == "required")
        e->required = v.as_bool();
      else if (k == "nullable")
        e->nullable = v.as_bool();
      else if (k == "identity")
        e->identity = v.as_bool();
      else if (k == "of")
        e->element = parse_type(v);
      else if (k == "values") {
        if (!v.is_sequence()) fail_at(v.mark(), "'values' must be a list of choices");
        for (const auto& c : v.items()) e->choices.push_back(c.as_string());
      } else {
        fail_at(v.key_mark(), "unknown schema attribute '" + k + "'");
      }
    }
    if (e->type == Type::enumeration && e->choices.empty()) fail_at(n.mark(), "an enum field needs 'values'");
    return e;
  }
  if (!n.is_map()) fail_at(n.mark(), "a schema entry must be a mapping");
  for (const auto& [k, v] : n.entries()) e->children.emplace_back(k, parse_entry(v));
  return e;
}

std::size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<std::size_t> prev(b.size() + 1), cur(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j)
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)});
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

std::string join(const std::string& prefix, const std::string& key) {
  return prefix.empty() ? key : prefix + "." + key;
}

std::string range_text(const Entry& e) {
  std::ostringstream s;
  if (e.min && e.max)
    s << " in [" << *e.min << ", " << *e.max << "]";
  else if (e.min)
    s << " >= " << *e.min;
  else if (e.max)
    s << " <= " << *e.max;
  return s.str();
}

std::string expected_text(const Entry& e, Type t) {
  switch (t) {
    case Type::boolean:
      return "true or false";
    case Type::integer:
      return "an integer" + range_text(e);
    case Type::number:
      return "a number" + range_text(e);
    case Type::string:
      return "a string";
    case Type::path:
      return "a path";
    case Type::enumeration: {
      std::string s = "one of ";
      for (std::size_t i = 0; i < e.choices.size(); ++i) s += (i ? ", " : "") + e.choices[i];
      return s;
    }
    case Type::list:
      return std::string("a list of ") + type_name(e.element);
    case Type::map:
      return std::string("a mapping of names to ") + type_name(e.element);
    case Type::any:
      return "any value";
  }
  return "?";
}

std::string shown(const Node& v) {
  // A value pasted by mistake can be megabytes; the one-line error shows its start and its length.
  if (v.is_scalar() && v.text().size() > 80)
    return "'" + v.text().substr(0, 60) + "...' (" + std::to_string(v.text().size()) + " characters)";
  if (v.is_scalar()) return "'" + v.text() + "'";
  if (v.is_null()) return "nothing";
  return v.kind_name();
}

bool has_leading_zero(const std::string& t) {
  const std::size_t i = (!t.empty() && (t[0] == '+' || t[0] == '-')) ? 1 : 0;
  return t.size() > i + 1 && t[i] == '0' && std::isdigit(static_cast<unsigned char>(t[i + 1]));
}

// Checks one scalar-typed value (a field, or one element of a list/map field).
void check_scalar(const Entry& e, Type t, const Node& v, const std::string& path) {
  auto fail = [&](std::string extra = "") {
    // "0.2,2.0" for one number is a sweep typed without -m.
    if (extra.empty() && v.is_scalar() && v.text().find(',') != std::string::npos && t != Type::string)
      extra = " (several values are a sweep: `loci train CONFIG -m " + path + "=" + v.text().substr(0, 40) + "`)";
    fail_at(v.mark(), "'" + path + "': expected " + expected_text(e, t) + ", got " + shown(v) + extra);
  };
  auto check_range = [&](double x) {
    if ((e.min && x < *e.min) || (e.max && x > *e.max)) fail();
  };
  switch (t) {
    case Type::boolean:
      if (!v.to_bool()) fail();
      break;
    case Type::integer: {
      auto x = v.to_int();
      if (!x) fail(has_leading_zero(v.text()) ? " (a leading zero is not allowed: YAML readers differ on octal)" : "");
      check_range(static_cast<double>(*x));
      break;
    }
    case Type::number: {
      auto x = v.to_double();
      // No option of loci means anything at infinity; a weight or a rate of .inf only turns into NaNs later.
      if (!x || !std::isfinite(*x)) fail(x ? " (a finite number is needed)" : "");
      check_range(*x);
      break;
    }
    case Type::string:
      if (!v.is_scalar()) fail();
      break;
    case Type::path: {
      if (!v.is_scalar()) fail();
      // Linux's own limits (PATH_MAX, NAME_MAX): past them every open fails, far from the key that caused it.
      const std::string& text = v.text();
      if (text.size() >= 4096) fail(" (a path is shorter than 4096 characters)");
      std::size_t part = 0;
      for (char c : text) {
        part = c == '/' ? 0 : part + 1;
        if (part > 255) fail(" (each part of a path is at most 255 characters)");
      }
      break;
    }
    case Type::enumeration:
      if (!v.is_scalar()) fail();
      if (std::find(e.choices.begin(), e.choices.end(), v.text()) == e.choices.end()) {
        const auto near = nearest(v.text(), e.choices);
        fail(near.empty() ? "" : " (did you mean '" + near + "'?)");
      }
      break;
    case Type::list:
    case Type::map:
    case Type::any:
      break;
  }
}

void check_field(const Entry& e, const Node& v, const std::string& path, const Mark& where_missing) {
  if (v.is_null()) {
    if (e.nullable || e.type == Type::any) return;
    if (e.required) throw UserError(where_missing.str() + ": missing required key '" + path + "' (" + e.doc + ")");
    fail_at(v.mark(), "'" + path + "': expected " + expected_text(e, e.type) + ", got nothing");
  }
  switch (e.type) {
    case Type::list:
      if (!v.is_sequence())
        fail_at(v.mark(), "'" + path + "': expected " + expected_text(e, e.type) + ", got " + shown(v));
      for (std::size_t i = 0; i < v.items().size(); ++i)
        if (e.element != Type::any) check_scalar(e, e.element, v.items()[i], path + "[" + std::to_string(i) + "]");
      break;
    case Type::map:
      if (!v.is_map()) fail_at(v.mark(), "'" + path + "': expected " + expected_text(e, e.type) + ", got " + shown(v));
      for (const auto& [k, item] : v.entries())
        if (e.element != Type::any) check_scalar(e, e.element, item, join(path, k));
      break;
    default:
      check_scalar(e, e.type, v, path);
  }
}

void validate_group(const Entry& g, const Node& config, const std::string& prefix) {
  if (!config.is_map()) {
    fail_at(config.mark(),
            "'" + (prefix.empty() ? "config" : prefix) + "': expected a mapping of keys, got " + shown(config));
  }
  for (const auto& [k, v] : config.entries()) {
    const auto child = g.child(k);
    if (!child) {
      const auto near = nearest(k, g.child_names());
      fail_at(v.key_mark(), "unknown key '" + join(prefix, k) + "'" +
                                (near.empty() ? "" : " (did you mean '" + join(prefix, near) + "'?)"));
    }
    if (child->is_field)
      check_field(*child, v, join(prefix, k), v.mark().line > 0 ? v.mark() : config.mark());
    else
      validate_group(*child, v, join(prefix, k));
  }
  for (const auto& [k, child] : g.children) {
    if (config.find(k)) continue;
    if (child->is_field && child->required)
      fail_at(config.mark(), "missing required key '" + join(prefix, k) + "' (" + child->doc + ")");
    if (!child->is_field) validate_group(*child, Node::map(config.mark()), join(prefix, k));
  }
}

void collect_defaults(const Entry& g, Node& out, const std::string& origin) {
  for (const auto& [k, child] : g.children) {
    if (child->is_field) {
      // A key without a default still takes its place, so resolved configs list keys in schema order.
      if (child->default_value)
        out.set(k, *child->default_value);
      else
        out.set(k, Node());
    } else {
      Node sub = Node::map(Mark{origin, 0, 0});
      collect_defaults(*child, sub, origin);
      out.set(k, std::move(sub));
    }
  }
}

// Groups merge key by key; a field's value (even a mapping, like `splits`) replaces the default whole.
void overlay(const Entry* g, Node& base, const Node& over) {
  if (!g || g->is_field || !base.is_map() || !over.is_map()) {
    base = over;
    return;
  }
  for (const auto& [k, v] : over.entries()) {
    Node* existing = base.find(k);
    const auto child = g->child(k);
    if (existing && child && !child->is_field && existing->is_map() && v.is_map()) {
      overlay(child.get(), *existing, v);
      existing->set_mark(v.mark());
      existing->set_key_mark(v.key_mark());
    } else {
      base.set(k, v);
    }
  }
}

void describe_group(const Entry& g, const std::string& prefix, std::ostringstream& out) {
  for (const auto& [k, child] : g.children) {
    const std::string path = join(prefix, k);
    if (!child->is_field) {
      describe_group(*child, path, out);
      continue;
    }
    std::string type = type_name(child->type);
    if (child->type == Type::list || child->type == Type::map) type += std::string(" of ") + type_name(child->element);
    if (child->type == Type::enumeration) type = expected_text(*child, child->type);
    type += range_text(*child);
    std::string def = child->required ? "(required)" : "";
    if (child->default_value) {
      def = to_yaml(*child->default_value);
      if (!def.empty() && def.back() == '\n') def.pop_back();
      std::replace(def.begin(), def.end(), '\n', ' ');
      def = "= " + def;
    }
    out << path << "  [" << type << "] " << def << (child->identity ? "" : "  (not part of a run's identity)")
        << "\n    " << child->doc << "\n";
  }
}

bool has_path(const Entry& g, const std::vector<std::string>& parts, std::size_t i) {
  if (i == parts.size()) return true;
  const auto c = g.child(parts[i]);
  if (!c) return false;
  if (c->is_field) return i + 1 == parts.size();
  return has_path(*c, parts, i + 1);
}

void extend_group(Entry& into, const Entry& from) {
  for (const auto& [k, child] : from.children) {
    auto mine = into.child(k);
    if (mine && !mine->is_field && !child->is_field) {
      extend_group(*mine, *child);
      continue;
    }
    bool replaced = false;
    for (auto& entry : into.children)
      if (entry.first == k) {
        entry.second = std::make_shared<Entry>(*child);
        replaced = true;
      }
    if (!replaced) into.children.emplace_back(k, std::make_shared<Entry>(*child));
  }
}

}  // namespace

std::string nearest(const std::string& word, const std::vector<std::string>& candidates) {
  std::string best;
  std::size_t best_d = std::string::npos;
  for (const auto& c : candidates) {
    const auto d = edit_distance(word, c);
    if (d < best_d) {
      best_d = d;
      best = c;
    }
  }
  return best;
}

Schema::Schema() : root_(std::make_shared<Entry>()) {}
Schema::Schema(const Schema& o) : root_(std::make_shared<Entry>(*o.root_)) {}
Schema& Schema::operator=(const Schema& o) {
  root_ = std::make_shared<Entry>(*o.root_);
  return *this;
}
Schema::~Schema() = default;

Schema Schema::parse(const std::string& yaml, const std::string& origin) {
  Schema s;
  const Node n = parse_yaml(yaml, origin);
  if (n.is_null()) return s;
  s.root_ = parse_entry(n);
  if (s.root_->is_field) throw UserError(origin + ": a schema must be a mapping of keys");
  return s;
}

void Schema::extend(const Schema& other) { extend_group(*root_, *other.root_); }

Node Schema::defaults() const {
  Node out = Node::map(Mark{"defaults", 0, 0});
  collect_defaults(*root_, out, "defaults");
  return out;
}

Node Schema::resolve(const Node& config, const std::vector<std::string>& overrides) const {
  Node out = defaults();
  overlay(root_.get(), out, config.is_null() ? Node::map(config.mark()) : config);
  out.set_mark(config.mark());
  apply_overrides(out, overrides);
  validate(out);
  return out;
}

void Schema::validate(const Node& resolved) const { validate_group(*root_, resolved, ""); }

std::string Schema::describe() const {
  std::ostringstream out;
  describe_group(*root_, "", out);
  return out.str();
}

bool Schema::has(const std::string& dotted) const { return has_path(*root_, split_path(dotted), 0); }

namespace {

void collect_outside_identity(const Entry& g, const std::string& prefix, std::vector<std::string>& out) {
  for (const auto& [k, child] : g.children) {
    const std::string path = join(prefix, k);
    if (!child->is_field)
      collect_outside_identity(*child, path, out);
    else if (!child->identity)
      out.push_back(path);
  }
}

}  // namespace

std::vector<std::string> Schema::outside_identity() const {
  std::vector<std::string> out;
  collect_outside_identity(*root_, "", out);
  return out;
}

}  // namespace loci::config
