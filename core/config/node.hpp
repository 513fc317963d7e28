// A YAML document as loci keeps it: a tree of scalars, sequences and maps in which every node remembers where it was
// written (file, line, column), so that an error found after includes, overrides and defaults are merged can still
// point at the text the user must change.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

namespace loci::config {

struct Mark {
  std::string file;  // a path, or a description such as "command line 'seed=x'"
  int line = 0;      // 1-based; 0 when the value has no line (command line, schema default)
  int column = 0;

  // "FILE:LINE:COL" or just FILE when there is no line.
  std::string str() const;
};

class Node {
 public:
  enum class Kind { null, scalar, sequence, map };
  using Entry = std::pair<std::string, Node>;

  Node() = default;
  static Node scalar(std::string text, Mark mark = {}, bool quoted = false);
  static Node sequence(Mark mark = {});
  static Node map(Mark mark = {});

  Kind kind() const { return kind_; }
  bool is_null() const { return kind_ == Kind::null; }
  bool is_scalar() const { return kind_ == Kind::scalar; }
  bool is_sequence() const { return kind_ == Kind::sequence; }
  bool is_map() const { return kind_ == Kind::map; }
  const char* kind_name() const;

  const Mark& mark() const { return mark_; }
  void set_mark(Mark m) { mark_ = std::move(m); }
  // Where this node's key was written, when it is the value of a map entry.
  const Mark& key_mark() const { return key_mark_.line || !key_mark_.file.empty() ? key_mark_ : mark_; }
  void set_key_mark(Mark m) { key_mark_ = std::move(m); }

  // Scalars. `quoted` keeps "1" a string when it is written back.
  const std::string& text() const { return text_; }
  bool quoted() const { return quoted_; }

  // Typed reads of a scalar; a wrong type is a UserError naming this node's position.
  std::int64_t as_int() const;
  double as_double() const;
  bool as_bool() const;
  const std::string& as_string() const;
  // Parse checks that do not throw, used by the schema to word its own errors.
  std::optional<std::int64_t> to_int() const;
  std::optional<double> to_double() const;
  std::optional<bool> to_bool() const;

  // Sequences.
  const std::vector<Node>& items() const { return items_; }
  std::vector<Node>& items() { return items_; }
  void push_back(Node n) { items_.push_back(std::move(n)); }

  // Maps keep the order in which keys were written.
  const std::vector<Entry>& entries() const { return entries_; }
  std::vector<Entry>& entries() { return entries_; }
  const Node* find(std::string_view key) const;
  Node* find(std::string_view key);
  // Inserts (at the end) or replaces the value of `key`.
  Node& set(std::string key, Node value);
  // Adds a key known not to be there yet (set() looks for it first), for building a map in linear time.
  Node& append(std::string key, Node value);
  bool erase(std::string_view key);

  // Dotted paths: "model.pe.init.std". find_path returns nullptr when any part is missing.
  const Node* find_path(std::string_view dotted) const;
  // Creates intermediate maps as needed; a scalar in the way is replaced by a map.
  Node& set_path(std::string_view dotted, Node value);

  // Convenience for code that reads a validated config: the value at `dotted`, or UserError if absent.
  const Node& at(std::string_view dotted) const;

 private:
  Kind kind_ = Kind::null;
  Mark mark_;
  Mark key_mark_;
  std::string text_;
  bool quoted_ = false;
  std::vector<Node> items_;
  std::vector<Entry> entries_;
  // Position of each key, for maps past a few keys, so that reading or building a map of n keys is O(n), not
  // O(n^2). Kept by the mutating calls only (set, append, erase), so that const lookups never write and stay
  // safe from many threads; a lookup falls back to a scan while the index does not cover every entry.
  std::unordered_map<std::string, std::size_t> index_;
  std::size_t indexed_ = 0;

  std::size_t position(std::string_view key) const;  // entries_.size() when absent
  void index_new_entries();
};

std::vector<std::string> split_path(std::string_view dotted);

}  // namespace loci::config
