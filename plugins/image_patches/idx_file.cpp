#include "idx_file.hpp"

#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <memory>

#include "core/error.hpp"

namespace loci::image_patches {

namespace {

struct GzCloser {
  void operator()(gzFile_s* f) const {
    if (f) gzclose(f);
  }
};

// gzread reads gzip and plain files alike, so one path serves `train-images-idx3-ubyte` and its `.gz`.
class Reader {
 public:
  explicit Reader(const std::string& path) : path_(path), file_(gzopen(path.c_str(), "rb")) {
    if (!file_) throw UserError(path + ": cannot open (" + std::string(std::strerror(errno)) + ")");
  }
  // Exactly n bytes, or a UserError saying the file ends early (or is damaged).
  void read(void* into, std::size_t n, const std::string& what) {
    auto* out = static_cast<unsigned char*>(into);
    while (n > 0) {
      const unsigned chunk = static_cast<unsigned>(std::min<std::size_t>(n, 1u << 30));
      const int got = gzread(file_.get(), out, chunk);
      if (got < 0) {
        int code = 0;
        throw UserError(path_ + ": damaged while reading " + what + " (" + gzerror(file_.get(), &code) + ")");
      }
      if (got == 0) throw UserError(path_ + ": ends before its " + what + " (truncated)");
      out += got;
      n -= static_cast<std::size_t>(got);
    }
  }
  bool at_end() {
    unsigned char extra;
    return gzread(file_.get(), &extra, 1) == 0;
  }

 private:
  std::string path_;
  std::unique_ptr<gzFile_s, GzCloser> file_;
};

std::uint32_t big_endian(const unsigned char* b) {
  return (std::uint32_t{b[0]} << 24) | (std::uint32_t{b[1]} << 16) | (std::uint32_t{b[2]} << 8) | b[3];
}

}  // namespace

IdxArray read_idx(const std::string& path, std::int64_t max_bytes) {
  Reader in(path);
  unsigned char magic[4];
  in.read(magic, 4, "magic number");
  // 0x00 0x00, the element type (0x08: unsigned byte), the number of dimensions.
  if (magic[0] != 0 || magic[1] != 0) throw UserError(path + ": not an IDX file (its first two bytes are not zero)");
  if (magic[2] != 0x08)
    throw UserError(path + ": IDX element type 0x" + std::to_string(magic[2]) +
                    " is not unsigned bytes (0x08), which image_patches reads");
  const int rank = magic[3];
  if (rank < 1 || rank > 4)
    throw UserError(path + ": IDX with " + std::to_string(rank) + " dimensions; 1 to 4 expected");
  IdxArray a;
  std::int64_t total = 1;
  for (int d = 0; d < rank; ++d) {
    unsigned char b[4];
    in.read(b, 4, "dimension " + std::to_string(d + 1));
    const std::int64_t n = big_endian(b);
    if (n == 0) throw UserError(path + ": dimension " + std::to_string(d + 1) + " is 0");
    total *= n;
    if (total > max_bytes)
      throw UserError(path + ": its dimensions say more than " + std::to_string(max_bytes) + " elements");
    a.dims.push_back(n);
  }
  a.bytes.resize(static_cast<std::size_t>(total));
  in.read(a.bytes.data(), a.bytes.size(), std::to_string(total) + " elements");
  if (!in.at_end()) throw UserError(path + ": holds more bytes than its dimensions say");
  return a;
}

}  // namespace loci::image_patches
