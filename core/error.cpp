#include "core/error.hpp"

namespace loci {

// Out of line: the key function that pins UserError's type information to one library (libloci_core).
UserError::~UserError() = default;

}  // namespace loci
