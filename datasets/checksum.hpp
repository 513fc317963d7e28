// A file's SHA-256 as lowercase hex (core/sha256.hpp), the form index.json stores, so `sha256sum` on a shard gives the
// same text.
#pragma once

#include <filesystem>
#include <string>

#include "core/sha256.hpp"

namespace loci::datasets {

std::string sha256_file(const std::filesystem::path& file);  // DataError naming the file if it cannot be read

}  // namespace loci::datasets
