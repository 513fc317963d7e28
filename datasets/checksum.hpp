// SHA-256 as lowercase hex, the form index.json stores, so `sha256sum` on a shard gives the same text.
#pragma once

#include <cstddef>
#include <filesystem>
#include <string>

namespace loci::datasets {

std::string sha256_hex(const void* data, std::size_t size);
std::string sha256_file(const std::filesystem::path& file);  // DataError naming the file if it cannot be read

}  // namespace loci::datasets
