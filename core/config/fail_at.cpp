#include "core/config/fail_at.hpp"

#include "core/error.hpp"

namespace loci::config {

void fail_at(const Mark& where, const std::string& message) { throw UserError(where.str() + ": " + message); }

void fail_at(const Node& at, const std::string& message) { fail_at(at.mark(), message); }

}  // namespace loci::config
