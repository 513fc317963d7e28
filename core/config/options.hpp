// Options declared once. A part that takes configuration (the trainer's model, PE, init, optimizer, ...) lists each
// key once, bound to the member of its options struct that holds it, with type, range or choices and doc; the
// default is whatever the struct's default constructor leaves in that member. From that one list follow the schema
// text (`loci config schema`, validation), the reader (resolved YAML -> struct) and the checks across keys, so no
// key is spelled twice and a choice the code accepts is a choice the config offers (LibTorch's options structs and
// TVB's declare-once parameters are the models).
#pragma once

#include <cmath>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "core/choices.hpp"
#include "core/config/fail_at.hpp"
#include "core/config/identity.hpp"
#include "core/config/node.hpp"
#include "core/error.hpp"
#include "core/params.hpp"

namespace loci::config {

// One key of a declaration, as the schema sees it.
struct OptionSpec {
  std::string path;                   // dotted
  std::string type;                   // schema type name: bool, int, float, string, path, enum, list, map, any
  std::string element;                // list element type
  std::optional<Node> default_value;  // absent with nullable: the key may be left out (null)
  std::optional<double> min, max;
  std::vector<std::string> choices;
  bool nullable = false;
  bool required = false;  // no default: a config must give it
  std::string doc;
  // Whether the key changes what a run computes, given the others (flattened, as in identity): a key that does not
  // apply (the SGD momentum of an AdamW run) is left out of the run's identity. Unset: it always applies.
  std::function<bool(const FlatConfig&)> applies;
  // False for a key that changes where or how fast a run goes, or what it keeps, never what it computes (thread
  // counts, checkpoint cadence): never part of a run's identity, so runs that differ only there are one run and one
  // group. The schema says it (`identity: false`); run identity, summary grouping and the docs read it there.
  bool identity = true;
};

// The value of `key` in `keys`, or "" when absent.
inline std::string flat_value(const FlatConfig& keys, const std::string& key) {
  const auto it = keys.find(key);
  return it == keys.end() ? std::string() : it->second;
}

// Schema YAML (see schema.hpp) for `specs`, groups nested along the dotted paths in declaration order.
std::string schema_yaml(const std::vector<OptionSpec>& specs);

// A mapping in the order it was written (split name -> count, split -> file).
template <class V>
using Entries = std::vector<std::pair<std::string, V>>;

// YAML scalar text of a default.
std::string default_text(double v);

template <class T>
class OptionTable {
 public:
  // A key being declared; chain its bounds, choices and doc.
  class Declared {
   public:
    explicit Declared(OptionSpec& s) : s_(s) {}
    Declared& min(double v) { return s_.min = v, *this; }
    Declared& max(double v) { return s_.max = v, *this; }
    Declared& within(double lo, double hi) { return min(lo).max(hi); }
    Declared& choices(std::vector<std::string> c) { return s_.type = "enum", s_.choices = std::move(c), *this; }
    // A path, or (on a list) a list of paths.
    Declared& path() { return (s_.type == "list" ? s_.element : s_.type) = "path", *this; }
    // No default: a config must give it.
    Declared& required() { return s_.required = true, s_.default_value.reset(), *this; }
    // Any YAML value, checked by whoever reads it (a pipeline's stage); null when left out.
    Declared& any() { return s_.type = "any", s_.element.clear(), s_.default_value.reset(), *this; }
    Declared& doc(std::string d) { return s_.doc = std::move(d), *this; }
    // Not part of a run's identity (see OptionSpec::identity).
    Declared& outside_identity() { return s_.identity = false, *this; }
    // The key applies only when `when` holds (see OptionSpec::applies).
    Declared& applies_if(std::function<bool(const FlatConfig&)> when) { return s_.applies = std::move(when), *this; }
    // The key applies only when `key` has one of `values`.
    Declared& applies_when(const std::string& key, std::vector<std::string> values) {
      return applies_if([key, values = std::move(values)](const FlatConfig& keys) {
        const std::string v = flat_value(keys, key);
        for (const auto& w : values)
          if (v == w) return true;
        return false;
      });
    }

   private:
    OptionSpec& s_;
  };

  // `get` returns a reference to the member that holds the value: [](Opts& o) -> double& { return o.lr; }.
  // Member types: bool, integers, double, std::string, std::vector<std::string>, std::vector<double> (min/max bound
  // each element), Entries<std::int64_t> and Entries<std::string> (mappings), std::optional<V> (nullable: absent
  // means nullopt).
  template <class Get>
  Declared add(const std::string& dotted, Get get) {
    using V = std::remove_reference_t<decltype(get(std::declval<T&>()))>;
    OptionSpec& s = specs_.emplace_back();
    s.path = dotted;
    T defaults{};
    describe<V>(s, get(defaults));
    readers_.push_back([get, dotted](const Node& resolved, T& target) {
      const Node* n = resolved.find_path(dotted);
      if (!n) return;  // the schema put every declared key in; a part built without it keeps its default
      assign(*n, get(target));
    });
    return Declared(s);
  }

  // A key that names one of a set of constants (an enum, as LibTorch's typed choices): the schema offers the names,
  // the reader stores the constant, the default is the name of the member's default.
  template <class Get, class V>
  Declared add_choice(const std::string& dotted, Get get, Choices<V> named) {
    OptionSpec& s = specs_.emplace_back();
    s.path = dotted;
    s.type = "enum";
    T defaults{};
    for (const auto& [name, value] : named) {
      s.choices.push_back(name);
      if (value == get(defaults)) s.default_value = Node::scalar(name, {}, true);
    }
    readers_.push_back([get, dotted, named = std::move(named)](const Node& resolved, T& target) {
      const Node* n = resolved.find_path(dotted);
      if (!n) return;
      for (const auto& [name, value] : named)  // the schema allowed only these names
        if (n->text() == name) get(target) = value;
    });
    return Declared(s);
  }

  // The parameters of a registered variant (a topology, a dynamics model: sim's ParamSpec, declared once in the
  // variant's own file) as keys `<group>.<name>`, read into the map `get` returns (flags as 1 / 0). The schema
  // states inclusive bounds; an exclusive one (ParamSpec::positive) is said in the doc and checked by its reader.
  // `applies`: when the keys apply (see OptionSpec::applies), e.g. only for the variant chosen.
  template <class Get>
  void add_params(const std::string& group, const std::vector<ParamSpec>& specs, Get get,
                  std::function<bool(const FlatConfig&)> applies = {}) {
    for (const auto& p : specs) {
      OptionSpec& s = specs_.emplace_back();
      s.path = group + "." + p.name;
      s.applies = applies;
      switch (p.kind) {
        case ParamSpec::Kind::flag:
          s.type = "bool", s.default_value = Node::scalar(p.fallback != 0 ? "true" : "false");
          break;
        case ParamSpec::Kind::integer:
          s.type = "int", s.default_value = Node::scalar(std::to_string(static_cast<long long>(p.fallback)));
          break;
        case ParamSpec::Kind::real:
          s.type = "float", s.default_value = Node::scalar(default_text(p.fallback));
          break;
      }
      if (p.kind != ParamSpec::Kind::flag) {
        if (std::isfinite(p.min)) s.min = p.min;
        if (std::isfinite(p.max)) s.max = p.max;
      }
      s.doc = p.doc + (p.min_exclusive ? " (> " + default_text(p.min) + ")" : "");
      const std::string path = s.path, name = p.name;
      const auto kind = p.kind;
      readers_.push_back([get, path, name, kind](const Node& resolved, T& target) {
        const Node* n = resolved.find_path(path);
        if (!n) return;
        get(target)[name] = kind == ParamSpec::Kind::flag      ? (n->as_bool() ? 1.0 : 0.0)
                            : kind == ParamSpec::Kind::integer ? static_cast<double>(n->as_int())
                                                               : n->as_double();
      });
    }
  }

  // A rule across keys, checked after reading: `ok` false is a UserError at `key`'s position: "key: message".
  void check(const std::string& key, std::function<bool(const T&)> ok, std::function<std::string(const T&)> message) {
    checks_.push_back({key, std::move(ok), std::move(message)});
  }

  const std::deque<OptionSpec>& specs() const { return specs_; }

  // The declaration of `dotted`, or nullptr.
  const OptionSpec* spec(const std::string& dotted) const {
    for (const auto& s : specs_)
      if (s.path == dotted) return &s;
    return nullptr;
  }

  // `keys` without the declared keys that do not apply to them, each decided on `keys` as given.
  FlatConfig applicable(const FlatConfig& keys) const {
    FlatConfig out = keys;
    for (const auto& s : specs_)
      if (s.applies && keys.count(s.path) && !s.applies(keys)) out.erase(s.path);
    return out;
  }
  std::string schema() const { return schema_yaml({specs_.begin(), specs_.end()}); }

  // The struct's defaults, then every declared key of `resolved` (validated against schema()), then the checks.
  void read(const Node& resolved, T& target) const {
    for (const auto& r : readers_) r(resolved, target);
    for (const auto& c : checks_)
      if (!c.ok(target)) {
        const Node* n = resolved.find_path(c.key);
        fail_at(n ? n->mark() : Mark{"config", 0, 0}, c.key + ": " + c.message(target));
      }
  }

 private:
  struct Check {
    std::string key;
    std::function<bool(const T&)> ok;
    std::function<std::string(const T&)> message;
  };

  template <class V>
  static void describe(OptionSpec& s, const V& fallback) {
    if constexpr (std::is_same_v<V, bool>) {
      s.type = "bool", s.default_value = Node::scalar(fallback ? "true" : "false");
    } else if constexpr (std::is_integral_v<V>) {
      s.type = "int", s.default_value = Node::scalar(std::to_string(fallback));
    } else if constexpr (std::is_floating_point_v<V>) {
      s.type = "float", s.default_value = Node::scalar(default_text(static_cast<double>(fallback)));
    } else if constexpr (std::is_same_v<V, std::string>) {
      s.type = "string", s.default_value = Node::scalar(fallback, {}, true);
    } else if constexpr (std::is_same_v<V, std::vector<std::string>>) {
      s.type = "list", s.element = "string";
      Node seq = Node::sequence();
      for (const auto& e : fallback) seq.push_back(Node::scalar(e, {}, true));
      s.default_value = seq;
    } else if constexpr (std::is_same_v<V, std::vector<double>>) {
      s.type = "list", s.element = "float";
      Node seq = Node::sequence();
      for (const double e : fallback) seq.push_back(Node::scalar(default_text(e)));
      s.default_value = seq;
    } else if constexpr (std::is_same_v<V, Entries<std::int64_t>>) {
      s.type = "map", s.element = "int";
      Node map = Node::map();
      for (const auto& [k, v] : fallback) map.set(k, Node::scalar(std::to_string(v)));
      s.default_value = map;
    } else if constexpr (std::is_same_v<V, Entries<double>>) {
      s.type = "map", s.element = "float";
      Node map = Node::map();
      for (const auto& [k, v] : fallback) map.set(k, Node::scalar(default_text(v)));
      s.default_value = map;
    } else if constexpr (std::is_same_v<V, Node>) {  // a mapping of anything, checked by its reader
      s.type = "map", s.element = "any";
      s.default_value = fallback.is_null() ? Node::map() : fallback;
    } else if constexpr (std::is_same_v<V, Entries<std::string>>) {
      s.type = "map", s.element = "string";
      Node map = Node::map();
      for (const auto& [k, v] : fallback) map.set(k, Node::scalar(v, {}, true));
      s.default_value = map;
    } else {  // std::optional<W>: nullable, absent by default
      using W = typename V::value_type;
      describe<W>(s, fallback ? *fallback : W{});
      s.nullable = true;
      if (!fallback) s.default_value.reset();
    }
  }

  template <class V>
  static void assign(const Node& n, V& out) {
    if constexpr (std::is_same_v<V, bool>) {
      out = n.as_bool();
    } else if constexpr (std::is_integral_v<V>) {
      out = static_cast<V>(n.as_int());
    } else if constexpr (std::is_floating_point_v<V>) {
      out = static_cast<V>(n.as_double());
    } else if constexpr (std::is_same_v<V, std::string>) {
      out = n.text();
    } else if constexpr (std::is_same_v<V, std::vector<std::string>>) {
      out.clear();
      for (const auto& e : n.items()) out.push_back(e.text());
    } else if constexpr (std::is_same_v<V, std::vector<double>>) {
      out.clear();
      for (const auto& e : n.items()) out.push_back(e.as_double());
    } else if constexpr (std::is_same_v<V, Entries<std::int64_t>>) {
      out.clear();
      for (const auto& [k, v] : n.entries()) out.emplace_back(k, v.as_int());
    } else if constexpr (std::is_same_v<V, Entries<std::string>>) {
      out.clear();
      for (const auto& [k, v] : n.entries()) out.emplace_back(k, v.text());
    } else if constexpr (std::is_same_v<V, Entries<double>>) {
      out.clear();
      for (const auto& [k, v] : n.entries()) out.emplace_back(k, v.as_double());
    } else if constexpr (std::is_same_v<V, Node>) {
      out = n;
    } else {
      if (n.is_null()) {
        out.reset();
        return;
      }
      typename V::value_type v{};
      assign(n, v);
      out = v;
    }
  }

  std::deque<OptionSpec> specs_;
  std::vector<std::function<void(const Node&, T&)>> readers_;
  std::vector<Check> checks_;
};

}  // namespace loci::config
