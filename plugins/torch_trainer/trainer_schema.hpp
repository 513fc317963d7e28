// The torch_trainer's config schema (YAML text, see plugins/api/config/schema.hpp).
#pragma once

namespace loci::torch_trainer {
const char* schema_text();
}
