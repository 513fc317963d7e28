// The one form every config error takes: "FILE:LINE:COL: message", pointing at the text the user must change.
#pragma once

#include <map>
#include <string>

#include "core/config/node.hpp"

namespace loci::config {

// A user's mistake found at `where`: throws UserError "FILE:LINE:COL: message".
[[noreturn]] void fail_at(const Mark& where, const std::string& message);

// fail_at(at.mark(), message): a mistake in the value `at`.
[[noreturn]] void fail_at(const Node& at, const std::string& message);

// Where each key of a resolved config was given, kept when its options are read so that a rule checked later (against
// the dataset, the machine, the model being built) names the key's position with no parsed config kept alive.
class KeyMarks {
 public:
  KeyMarks() = default;
  // Every dotted key of `resolved` (maps walked into; a sequence is one key) with its value's position: the file,
  // the command line, or "defaults" for a key nobody set.
  explicit KeyMarks(const Node& resolved);

  // The position of `dotted`; a key the config does not hold is named "config".
  Mark of(const std::string& dotted) const;

  // fail_at(of(dotted), message).
  [[noreturn]] void fail(const std::string& dotted, const std::string& message) const;

 private:
  std::map<std::string, Mark> marks_;
};

}  // namespace loci::config
