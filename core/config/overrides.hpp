// Command-line overrides `a.b.c=value` (the value read as YAML, so `3` is an int, `[1, 2]` a list, `"3"` a string)
// and Hydra-style sweeps: `key=v1,v2` and `key=range(start,stop[,step])` expand to the cartesian product.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "core/config/node.hpp"

namespace loci::config {

struct Override {
  std::string path;  // dotted key path
  Node value;
  std::string text;  // the argument as typed, for messages
};

Override parse_override(std::string_view arg);
void apply_override(Node& root, const Override& o);
void apply_overrides(Node& root, const std::vector<std::string>& args);

// Splits a sweep's value list at top-level commas and expands range(...). A value with no comma is one point.
std::vector<std::string> sweep_values(std::string_view key, std::string_view values);

// Every point of the sweep, each as a list of plain `key=value` overrides. The last key varies fastest.
std::vector<std::vector<std::string>> expand_sweep(const std::vector<std::string>& args);

}  // namespace loci::config
