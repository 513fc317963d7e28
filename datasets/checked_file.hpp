// Files loci writes whole and reads back later (checkpoints, pe.h5, attention.h5), each with a record of its SHA-256
// beside it (`file`.sha256). Neither LibTorch's archives nor HDF5's metadata carry a checksum of their own, and
// HDF5 itself can crash on a damaged file: the record lets a reader refuse damage in one line before the library
// sees it. A file without a record (written by an older loci, or copied without it) is read unchecked.
#pragma once

#include <cstddef>
#include <filesystem>
#include <string>

namespace loci::datasets {

// `bytes` written atomically as `file`, and the record beside it. The record names the new digest before the file
// is replaced and the old one's until it has been, so a process killed between the two leaves a pair that agrees.
void write_checked(const std::filesystem::path& file, const char* bytes, std::size_t size);
inline void write_checked(const std::filesystem::path& file, const std::string& bytes) {
  write_checked(file, bytes.data(), bytes.size());
}

// DataError naming the file, with `remedy` appended, when its record names other bytes; nothing when it has none.
void verify_checked(const std::filesystem::path& file, const std::string& remedy);

}  // namespace loci::datasets
