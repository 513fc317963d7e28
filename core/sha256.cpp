#include "core/sha256.hpp"

#include <openssl/evp.h>

#include <stdexcept>

namespace loci {

struct Sha256::Context {
  EVP_MD_CTX* md = EVP_MD_CTX_new();
  ~Context() { EVP_MD_CTX_free(md); }
};

Sha256::Sha256() : context_(std::make_unique<Context>()) {
  if (!context_->md || EVP_DigestInit_ex(context_->md, EVP_sha256(), nullptr) != 1)
    throw std::runtime_error("sha256: no digest");
}

Sha256::~Sha256() = default;

void Sha256::update(const void* data, std::size_t size) { EVP_DigestUpdate(context_->md, data, size); }

std::string Sha256::hex() {
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned int n = 0;
  EVP_DigestFinal_ex(context_->md, md, &n);
  static const char* digits = "0123456789abcdef";
  std::string out(2 * n, '0');
  for (unsigned i = 0; i < n; ++i) {
    out[2 * i] = digits[md[i] >> 4];
    out[2 * i + 1] = digits[md[i] & 15];
  }
  return out;
}

std::string sha256_hex(const void* data, std::size_t size) {
  Sha256 digest;
  digest.update(data, size);
  return digest.hex();
}

}  // namespace loci
