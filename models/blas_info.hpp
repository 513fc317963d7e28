// What BLAS the matrix products run on, for run records and benchmarks: OpenBLAS's build line (version, threading,
// kernel chosen for this CPU), or a plain statement that the BLAS is not OpenBLAS.
#pragma once

#include <string>

namespace loci::models {

std::string blas_description();

}  // namespace loci::models
