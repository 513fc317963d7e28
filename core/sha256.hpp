// SHA-256 as lowercase hex, the form index.json and identity.json store, so that `sha256sum` gives the same text.
#pragma once

#include <cstddef>
#include <memory>
#include <string>

namespace loci {

// A digest fed piece by piece (a file read in blocks): update() any number of times, then hex() once.
class Sha256 {
 public:
  Sha256();
  ~Sha256();
  Sha256(const Sha256&) = delete;
  Sha256& operator=(const Sha256&) = delete;
  void update(const void* data, std::size_t size);
  std::string hex();

 private:
  struct Context;
  std::unique_ptr<Context> context_;
};

std::string sha256_hex(const void* data, std::size_t size);

}  // namespace loci
