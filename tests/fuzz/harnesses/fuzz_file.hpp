// The harnesses' one piece of plumbing: the readers take file names, so each input is written to a file of this
// process's own in /dev/shm (or /tmp) first.
#pragma once

#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <string>

namespace loci::fuzz {

inline std::string input_file(const std::uint8_t* data, std::size_t size, const std::string& suffix) {
  static const std::string dir = std::filesystem::is_directory("/dev/shm") ? "/dev/shm" : "/tmp";
  const std::string path = dir + "/loci-fuzz-" + std::to_string(getpid()) + suffix;
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) __builtin_trap();
  if (size > 0 && std::fwrite(data, 1, size, f) != size) __builtin_trap();
  std::fclose(f);
  return path;
}

}  // namespace loci::fuzz
