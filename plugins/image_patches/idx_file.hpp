// IDX files (the format of MNIST and Fashion-MNIST: a magic number giving the element type and the number of
// dimensions, the dimensions as big-endian 32-bit counts, then the elements), plain or gzip-compressed.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace loci::image_patches {

struct IdxArray {
  std::vector<std::int64_t> dims;   // e.g. {60000, 28, 28} for images, {60000} for labels
  std::vector<std::uint8_t> bytes;  // the elements, unsigned bytes (the only element type these sets use)
};

// Reads `path` whole. Anything that is not an IDX file of unsigned bytes, or that holds fewer (or more) bytes than
// its dimensions say, is a UserError naming the file and what is wrong; at most `max_bytes` elements are accepted.
IdxArray read_idx(const std::string& path, std::int64_t max_bytes = std::int64_t{1} << 32);

}  // namespace loci::image_patches
