// The one form every config error takes: "FILE:LINE:COL: message", pointing at the text the user must change.
#pragma once

#include <string>

#include "core/config/node.hpp"

namespace loci::config {

// A user's mistake found at `where`: throws UserError "FILE:LINE:COL: message".
[[noreturn]] void fail_at(const Mark& where, const std::string& message);

// fail_at(at.mark(), message): a mistake in the value `at`.
[[noreturn]] void fail_at(const Node& at, const std::string& message);

}  // namespace loci::config
