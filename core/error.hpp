// Errors a user can cause and fix (bad YAML, unknown plugin, wrong value): the `loci` command prints them as one
// line, `loci: error: <message>`, and exits 1. Anything else that escapes is an internal error (exit 2).
#pragma once

#include <stdexcept>
#include <string>

namespace loci {

class UserError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
  ~UserError() override;
};

}  // namespace loci
