#include "models/blas_info.hpp"

// Weak, so that a process whose BLAS is not OpenBLAS still loads; the symbol is then null.
extern "C" char* openblas_get_config(void) __attribute__((weak));

namespace loci::models {

std::string blas_description() {
  if (openblas_get_config == nullptr) return "not OpenBLAS";
  const char* config = openblas_get_config();
  return config ? config : "OpenBLAS";
}

}  // namespace loci::models
