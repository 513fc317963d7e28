// A spatially smooth random field on a voxel grid that evolves in time, and its averages over parcels.
//
// Each step draws white noise on the grid padded by the kernel radius, smooths it with a Gaussian of the
// configured FWHM (separable: along x, then y, then z, each keeping only the outputs whose kernel lies wholly in
// the padded grid, so every voxel of the grid is smoothed alike, edges included), scales it to unit variance and
// mixes it in as an AR(1) process:  f(t) = rho f(t-1) + sqrt(1 - rho^2) s(t),  f(0) = s(0).
// The field is stationary with unit variance; the correlation of two voxels d mm apart is exp(-d^2 / (4 sd^2)),
// sd = FWHM / (2 sqrt(2 ln 2)) (the smoothing kernel convolved with itself), and rho per step in time.
//
// Noise of step t, padded plane k comes from its own stream (seed, "field", subject) -> (t, k), and every output
// value sums its terms in one fixed order, so the field is the same for any number of threads.
#pragma once

#include <cstdint>
#include <vector>

#include "core/option.hpp"
#include "sim/volume/grid.hpp"

namespace loci::sim::volume {

class SmoothFieldOptions {
  LOCI_OPTION(double, fwhm_mm) = 12.0;  // of the smoothing kernel; 0 = white noise
  LOCI_OPTION(double, rho) = 0.9;       // AR(1) coefficient per step, in [0, 1)
  LOCI_OPTION(double, truncate) = 4.0;  // kernel radius in sd, as scipy.ndimage's `truncate`
  LOCI_OPTION(int, threads) = 0;        // 0 = OpenMP's default
};

// scipy.ndimage's Gaussian: exp(-x^2 / (2 sd^2)) for integer |x| <= int(truncate sd + 0.5), normalised to sum 1.
std::vector<double> gaussian_kernel(double sd, double truncate);

// sd in mm of the Gaussian with this FWHM.
double fwhm_to_sd(double fwhm_mm);

class SmoothField {
 public:
  // std::invalid_argument for options out of range.
  SmoothField(const Grid& grid, const SmoothFieldOptions& options, std::uint64_t seed, std::uint64_t subject);

  // Advances to the next time point (the first call draws f(0)).
  void step();
  const std::vector<float>& values() const { return field_; }  // grid.voxels() values, x fastest
  std::int64_t steps() const { return steps_; }
  std::int64_t padded_voxels() const { return padded_[0] * padded_[1] * padded_[2]; }

 private:
  Grid grid_;
  SmoothFieldOptions options_;
  std::uint64_t key_ = 0;
  std::vector<float> kernel_[3];
  std::int64_t radius_[3] = {0, 0, 0};
  std::int64_t padded_[3] = {0, 0, 0};
  float scale_ = 1;  // 1 / the sd of smoothed unit noise
  std::int64_t steps_ = 0;
  struct Workspace {
    std::vector<float> noise, wide, rows, smoothed;
  };
  std::vector<Workspace> work_;  // one per thread, kept from step to step
  std::vector<float> slab_;      // y-smoothed planes: nx * ny per padded z-plane
  std::vector<float> field_;
};

// Means of a field over each parcel (labels 1..P), each summed in voxel order.
class ParcelAverager {
 public:
  ParcelAverager(const LabelVolume& parcels, std::int64_t count);
  void average(const float* field, float* out) const;  // out: P values
  std::int64_t parcels() const { return static_cast<std::int64_t>(first_.size()) - 1; }

 private:
  std::vector<std::int64_t> first_;  // voxels of parcel p: members_[first_[p] .. first_[p + 1])
  std::vector<std::int64_t> members_;
};

}  // namespace loci::sim::volume
