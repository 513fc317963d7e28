// What a plugin accepts: every key with its type, range or choices, default and one-line doc, written by the plugin
// as YAML. A schema resolves a user's config (defaults, then the file, then overrides) and checks every key, so a
// misspelled or mistyped key is an error at its position, never a silent default.
//
// Schema text: a mapping; a key whose value is a mapping with a scalar `type:` is a field, any other mapping is a
// group of fields. Field keys: type (bool | int | float | string | path | enum | list | map | any), default,
// min, max (numbers, or list/map elements), values (enum choices), of (element type of a list or map), doc,
// required (true when there is no sensible default), nullable (null allowed), identity (false: the key never changes
// what a run computes, only where or how fast it goes; left out of a run's identity).
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/config/node.hpp"

namespace loci::config {

class Schema {
 public:
  enum class Type { boolean, integer, number, string, path, enumeration, list, map, any };

  struct Entry;  // a field or a group; defined in schema.cpp

  Schema();
  Schema(const Schema&);
  Schema& operator=(const Schema&);
  ~Schema();

  static Schema parse(const std::string& yaml, const std::string& origin);

  // Adds (or replaces) the fields of `other`; used to put a plugin's own keys on top of the shared vocabulary.
  void extend(const Schema& other);

  // A mapping holding every default.
  Node defaults() const;

  // defaults, then `config` on top (a field's value replaces the default whole; groups merge), then the
  // command-line overrides (`splits.train=600` changes one entry of the resolved map), then validation.
  Node resolve(const Node& config, const std::vector<std::string>& overrides = {}) const;

  // Throws UserError at the position of the first problem: unknown key (with the nearest valid key), wrong type,
  // value out of range, unknown choice, missing required key.
  void validate(const Node& resolved) const;

  // One line per field: path, type, range/choices, default, doc.
  std::string describe() const;

  bool has(const std::string& dotted) const;

  // The dotted paths of the fields marked `identity: false`, in schema order.
  std::vector<std::string> outside_identity() const;

 private:
  std::shared_ptr<Entry> root_;
};

// The nearest of `candidates` to `word` by edit distance, or "" when there is none.
std::string nearest(const std::string& word, const std::vector<std::string>& candidates);

}  // namespace loci::config
