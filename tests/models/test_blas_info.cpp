// What a run records of its BLAS (models/blas_info.hpp).
#include <catch2/catch.hpp>

#include "models/blas_info.hpp"

TEST_CASE("the BLAS is described by OpenBLAS's own build line, kernel included") {
  // scripts/setup.sh installs OpenBLAS (libopenblas0-openmp) as the system BLAS.
  const std::string d = loci::models::blas_description();
  CHECK(d.rfind("OpenBLAS ", 0) == 0);
  CHECK(d.find("MAX_THREADS=") != std::string::npos);  // the build line, which names the kernel before this
}
