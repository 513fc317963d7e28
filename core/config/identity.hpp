// The identity of a result: the keys of a resolved config that decide it (not where it is written, how many threads
// make it, or how it reports progress), flattened to `a.b.c -> value` and hashed. A dataset, a run and a pipeline
// stage record theirs; resuming or keeping one compares identities and names the keys that differ.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "core/config/node.hpp"

namespace loci::config {

using FlatConfig = std::map<std::string, std::string>;  // dotted key -> YAML text of the value

// Every leaf of a mapping (a scalar, a sequence or an empty map) under its dotted path.
FlatConfig flatten(const Node& node);

// `node` without the keys (dotted; a key takes its subtree with it) in `drop`; a group left empty goes too.
Node without(const Node& node, const std::vector<std::string>& drop);

struct Identity {
  FlatConfig keys;
  std::string hash;  // SHA-256 hex of the keys, one "key=value" line each in key order
};

Identity identity_of(const FlatConfig& keys);

// Whether two values of a key say the same: the same text, or the same finite number written two ways
// (1e-4 and 0.0001), so that an override spelled otherwise than the record is not a different run.
bool same_value(const std::string& a, const std::string& b);

// Every key in both, with the same value (same_value).
bool same_settings(const FlatConfig& a, const FlatConfig& b);

// "train.lr (0.0001 -> 0.01), seed (0 -> 1)": the keys whose values differ between `had` and `now` (a key on one
// side only counts, shown as "(absent)"); at most `limit` listed, then "and N more". Empty when they agree.
std::string describe_difference(const FlatConfig& had, const FlatConfig& now, std::size_t limit = 6);

}  // namespace loci::config
