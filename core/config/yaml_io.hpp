// Reading YAML into config::Node (with positions and `include:`), merging, and writing it back out.
#pragma once

#include <filesystem>
#include <string>

#include "core/config/node.hpp"

namespace loci::config {

// Parses YAML text; `origin` names it in positions (a file path, "schema of lst_grid", ...).
Node parse_yaml(const std::string& text, const std::string& origin);

// Loads a file and resolves its `include:` key (a path or a list of paths, relative to the including file):
// the included files are merged in order, then the file's own keys on top (later wins). Cycles are errors.
Node load_file(const std::filesystem::path& path);

// The same for a mapping inside a file (a pipeline stage): its `include:` paths are relative to the file that wrote
// each of them (a stage that came in through another file's include resolves against that file), or to `base_dir`
// for a path with no file line (a command-line override).
Node resolve_includes(const Node& node, const std::filesystem::path& base_dir);

// The folder a path-valued key is relative to: that of the file the value was written in, or `fallback` for a value
// that has no file line (the command line, a default).
std::filesystem::path folder_of(const Node& value, const std::filesystem::path& fallback);

// Deep merge: maps merge key by key, anything else in `over` (an empty map too) replaces what `base` had.
void merge(Node& base, const Node& over);

// Block-style YAML, keys in the order they were written.
std::string to_yaml(const Node& node);

}  // namespace loci::config
