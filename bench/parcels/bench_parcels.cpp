// Voxel-time-steps per second of the smooth random field of volumetric_parcels (sim/volume/smooth_field): each
// step draws noise on the padded grid, smooths it along x, y and z with a Gaussian, and mixes it into the AR(1)
// field. bench/reference/parcels_reference.py does the same steps in numpy/scipy; bench/parcels/run.sh runs both.
//
//   bench_parcels [--dims 36,44,32] [--voxel 4] [--fwhm 12] [--rho 0.9] [--steps 400] [--threads 1] [--seed 1]
// Prints one line: impl=cpp dims=... threads=T steps=S voxel_steps_per_s=R cpu_voxel_steps_per_s=C variance=V
// digest=D (a hash of the final field: equal digests for different thread counts mean equal data).
#include <omp.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <sstream>
#include <string>

#include "sim/volume/smooth_field.hpp"

namespace vol = loci::sim::volume;

int main(int argc, char** argv) {
  std::array<std::int64_t, 3> dims{36, 44, 32};
  double voxel = 4, fwhm = 12, rho = 0.9;
  long long steps = 400, seed = 1;
  int threads = 1;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string key = argv[i], value = argv[i + 1];
    if (key == "--dims") {
      std::istringstream s(value);
      char comma;
      s >> dims[0] >> comma >> dims[1] >> comma >> dims[2];
    } else if (key == "--voxel")
      voxel = std::stod(value);
    else if (key == "--fwhm")
      fwhm = std::stod(value);
    else if (key == "--rho")
      rho = std::stod(value);
    else if (key == "--steps")
      steps = std::stoll(value);
    else if (key == "--threads")
      threads = std::stoi(value);
    else if (key == "--seed")
      seed = std::stoll(value);
    else {
      std::fprintf(stderr, "unknown option %s\n", key.c_str());
      return 2;
    }
  }
  vol::Grid grid;
  grid.dims = dims;
  grid.affine.topLeftCorner<3, 3>() *= voxel;
  vol::SmoothField field(grid, vol::SmoothFieldOptions().fwhm_mm(fwhm).rho(rho).threads(threads),
                         static_cast<std::uint64_t>(seed), 0);
  field.step();  // first touch of every buffer, outside the timing
  const auto wall0 = std::chrono::steady_clock::now();
  const std::clock_t cpu0 = std::clock();
  for (long long t = 0; t < steps; ++t) field.step();
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();
  const double cpu = static_cast<double>(std::clock() - cpu0) / CLOCKS_PER_SEC;
  double variance = 0;
  std::uint64_t digest = 0xCBF29CE484222325ull;
  for (float v : field.values()) {
    variance += static_cast<double>(v) * v;
    std::uint32_t bits;
    std::memcpy(&bits, &v, sizeof bits);
    digest = (digest ^ bits) * 0x100000001B3ull;
  }
  variance /= static_cast<double>(field.values().size());
  const double work = static_cast<double>(grid.voxels()) * static_cast<double>(steps);
  std::printf(
      "impl=cpp dims=%lldx%lldx%lld padded_voxels=%lld fwhm_mm=%g voxel_mm=%g threads=%d steps=%lld "
      "voxel_steps_per_s=%.6g cpu_voxel_steps_per_s=%.6g variance=%.3f digest=%016llx\n",
      static_cast<long long>(dims[0]), static_cast<long long>(dims[1]), static_cast<long long>(dims[2]),
      static_cast<long long>(field.padded_voxels()), fwhm, voxel, threads, steps, work / wall, work / cpu, variance,
      static_cast<unsigned long long>(digest));
  return 0;
}
