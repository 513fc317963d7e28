#include "datasets/checksum.hpp"

#include <openssl/evp.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <memory>
#include <vector>

#include "datasets/error.hpp"

namespace loci::datasets {

namespace {

struct DigestDeleter {
  void operator()(EVP_MD_CTX* c) const { EVP_MD_CTX_free(c); }
};
using Digest = std::unique_ptr<EVP_MD_CTX, DigestDeleter>;

Digest start() {
  Digest ctx(EVP_MD_CTX_new());
  if (!ctx || EVP_DigestInit_ex(ctx.get(), EVP_sha256(), nullptr) != 1) throw std::runtime_error("sha256: no digest");
  return ctx;
}

std::string finish(EVP_MD_CTX* ctx) {
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned int n = 0;
  EVP_DigestFinal_ex(ctx, md, &n);
  static const char* hex = "0123456789abcdef";
  std::string out(2 * n, '0');
  for (unsigned i = 0; i < n; ++i) {
    out[2 * i] = hex[md[i] >> 4];
    out[2 * i + 1] = hex[md[i] & 15];
  }
  return out;
}

}  // namespace

std::string sha256_hex(const void* data, std::size_t size) {
  Digest ctx = start();
  EVP_DigestUpdate(ctx.get(), data, size);
  return finish(ctx.get());
}

std::string sha256_file(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) throw DataError(file, std::string("cannot open (") + std::strerror(errno) + ")");
  Digest ctx = start();
  std::vector<char> block(1 << 20);
  while (in) {
    in.read(block.data(), static_cast<std::streamsize>(block.size()));
    if (in.gcount() > 0) EVP_DigestUpdate(ctx.get(), block.data(), static_cast<std::size_t>(in.gcount()));
  }
  if (in.bad()) throw DataError(file, "read failed while checksumming");
  return finish(ctx.get());
}

}  // namespace loci::datasets
