#include "core/config/fail_at.hpp"

#include "core/error.hpp"

namespace loci::config {

void fail_at(const Mark& where, const std::string& message) { throw UserError(where.str() + ": " + message); }

void fail_at(const Node& at, const std::string& message) { fail_at(at.mark(), message); }

namespace {

void collect(const Node& node, const std::string& prefix, std::map<std::string, Mark>& out) {
  for (const auto& [key, value] : node.entries()) {
    const std::string dotted = prefix.empty() ? key : prefix + "." + key;
    out[dotted] = value.mark();
    if (value.is_map()) collect(value, dotted, out);
  }
}

}  // namespace

KeyMarks::KeyMarks(const Node& resolved) {
  if (resolved.is_map()) collect(resolved, "", marks_);
}

Mark KeyMarks::of(const std::string& dotted) const {
  const auto it = marks_.find(dotted);
  if (it == marks_.end()) return Mark{"config", 0, 0};
  // A default the schema filled in carries no position of its own.
  return it->second.file.empty() ? Mark{"defaults", 0, 0} : it->second;
}

void KeyMarks::fail(const std::string& dotted, const std::string& message) const { fail_at(of(dotted), message); }

}  // namespace loci::config
