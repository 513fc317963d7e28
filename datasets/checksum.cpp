#include "datasets/checksum.hpp"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <vector>

#include "datasets/error.hpp"

namespace loci::datasets {

std::string sha256_file(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) throw DataError(file, std::string("cannot open (") + std::strerror(errno) + ")");
  Sha256 digest;
  std::vector<char> block(1 << 20);
  while (in) {
    in.read(block.data(), static_cast<std::streamsize>(block.size()));
    if (in.gcount() > 0) digest.update(block.data(), static_cast<std::size_t>(in.gcount()));
  }
  if (in.bad()) throw DataError(file, "read failed while checksumming");
  return digest.hex();
}

}  // namespace loci::datasets
