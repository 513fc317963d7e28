#include "cpu/clones.hpp"  // first: it sets how the loops below are compiled

#include "sim/volume/smooth_field.hpp"

#include <omp.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "sim/dynamics/normal.hpp"
#include "sim/random/stream.hpp"

namespace loci::sim::volume {

namespace {

int team(int threads) { return threads > 0 ? threads : omp_get_max_threads(); }

// out[i] = sum_d w[d] in[i + d * stride] for i < m, the terms added in order of d. A block of a compile-time size
// stays in vector registers through all taps: one store per output instead of one per tap.
template <std::size_t kMax>
inline void correlate_block(const float* in, std::size_t stride, std::size_t m, const float* w, std::size_t taps,
                            float* out) {
  float acc[kMax];
#pragma omp simd
  for (std::size_t i = 0; i < m; ++i) acc[i] = w[0] * in[i];
  for (std::size_t d = 1; d < taps; ++d) {
    const float wd = w[d];
    const float* row = in + d * stride;
#pragma omp simd
    for (std::size_t i = 0; i < m; ++i) acc[i] += wd * row[i];
  }
#pragma omp simd
  for (std::size_t i = 0; i < m; ++i) out[i] = acc[i];
}

// The same for i < n: with stride 1 it smooths along a row; with the size of a row or a plane it smooths whole rows
// or planes at once, contiguous in memory either way.
LOCI_CLONES void correlate(const float* in, std::size_t stride, std::size_t n, const float* w, std::size_t taps,
                           float* out) {
  constexpr std::size_t kBlock = 64;
  std::size_t first = 0;
  for (; first + kBlock <= n; first += kBlock)
    correlate_block<kBlock>(in + first, stride, kBlock, w, taps, out + first);
  if (first < n) correlate_block<kBlock>(in + first, stride, n - first, w, taps, out + first);
}

// field = a field + b s
LOCI_CLONES void mix(float* field, const float* s, std::size_t n, float a, float b) {
#pragma omp simd
  for (std::size_t i = 0; i < n; ++i) field[i] = a * field[i] + b * s[i];
}

}  // namespace

double fwhm_to_sd(double fwhm_mm) { return fwhm_mm / (2.0 * std::sqrt(2.0 * std::log(2.0))); }

std::vector<double> gaussian_kernel(double sd, double truncate) {
  if (!(sd >= 0) || !(truncate > 0)) throw std::invalid_argument("gaussian kernel: sd must be >= 0 and truncate > 0");
  const auto radius = static_cast<std::int64_t>(truncate * sd + 0.5);
  std::vector<double> w(static_cast<std::size_t>(2 * radius + 1));
  double sum = 0;
  for (std::int64_t x = -radius; x <= radius; ++x) {
    const double v = radius == 0 ? 1.0 : std::exp(-0.5 * double(x * x) / (sd * sd));
    w[static_cast<std::size_t>(x + radius)] = v;
    sum += v;
  }
  for (auto& v : w) v /= sum;
  return w;
}

SmoothField::SmoothField(const Grid& grid, const SmoothFieldOptions& o, std::uint64_t seed, std::uint64_t subject)
    : grid_(grid), options_(o) {
  if (!(o.fwhm_mm() >= 0)) throw std::invalid_argument("smooth field: fwhm_mm must be >= 0");
  if (!(o.rho() >= 0 && o.rho() < 1)) throw std::invalid_argument("smooth field: rho must be in [0, 1)");
  if (grid.voxels() < 1) throw std::invalid_argument("smooth field: empty grid");
  Rng root = Rng::stream(seed, "field", subject);
  key_ = root();
  const Eigen::Vector3d spacing = grid.spacing_mm();
  double variance = 1;
  for (std::size_t a = 0; a < 3; ++a) {
    const auto w = gaussian_kernel(fwhm_to_sd(o.fwhm_mm()) / spacing[static_cast<Eigen::Index>(a)], o.truncate());
    double squares = 0;
    for (double v : w) squares += v * v;
    variance *= squares;
    kernel_[a].assign(w.begin(), w.end());
    radius_[a] = static_cast<std::int64_t>(w.size() / 2);
    padded_[a] = grid.dims[a] + 2 * radius_[a];
  }
  scale_ = static_cast<float>(1.0 / std::sqrt(variance));
  slab_.assign(static_cast<std::size_t>(grid.dims[0] * grid.dims[1] * padded_[2]), 0.0f);
  field_.assign(static_cast<std::size_t>(grid.voxels()), 0.0f);
}

void SmoothField::step() {
  const auto nx = static_cast<std::size_t>(grid_.dims[0]), ny = static_cast<std::size_t>(grid_.dims[1]);
  const auto nz = static_cast<std::size_t>(grid_.dims[2]);
  const auto px = static_cast<std::size_t>(padded_[0]), py = static_cast<std::size_t>(padded_[1]);
  const auto pz = static_cast<std::size_t>(padded_[2]);
  const std::size_t plane = nx * ny, shift = 2 * static_cast<std::size_t>(radius_[0]);
  const float a = steps_ == 0 ? 0.0f : static_cast<float>(options_.rho());
  const float b = scale_ * (steps_ == 0 ? 1.0f : static_cast<float>(std::sqrt(1.0 - options_.rho() * options_.rho())));
  const auto t = static_cast<std::uint64_t>(steps_);
  const int threads = team(options_.threads());
  if (work_.size() < static_cast<std::size_t>(threads)) work_.resize(static_cast<std::size_t>(threads));
#pragma omp parallel num_threads(threads)
  {
    Workspace& w = work_[static_cast<std::size_t>(omp_get_thread_num())];
    w.noise.resize(px * py), w.wide.resize(px * py), w.rows.resize(nx * py), w.smoothed.resize(plane);
    // Noise of each padded plane, smoothed along x and y into the slab. Along x the plane is treated as one long
    // row (outputs that straddle two rows are computed and dropped): long loops vectorise, 36-voxel rows do not.
#pragma omp for schedule(static)
    for (std::int64_t k = 0; k < static_cast<std::int64_t>(pz); ++k) {
      Rng rng = Rng::stream(key_, "plane", t * pz + static_cast<std::uint64_t>(k));
      dynamics::normal_fill(rng, w.noise.size(), w.noise.data());
      correlate(w.noise.data(), 1, px * py - shift, kernel_[0].data(), kernel_[0].size(), w.wide.data());
      for (std::size_t j = 0; j < py; ++j) std::copy_n(w.wide.data() + j * px, nx, w.rows.data() + j * nx);
      correlate(w.rows.data(), nx, plane, kernel_[1].data(), kernel_[1].size(),
                slab_.data() + static_cast<std::size_t>(k) * plane);
    }
    // Along z, then into the AR(1) field.
#pragma omp for schedule(static)
    for (std::int64_t k = 0; k < static_cast<std::int64_t>(nz); ++k) {
      correlate(slab_.data() + static_cast<std::size_t>(k) * plane, plane, plane, kernel_[2].data(), kernel_[2].size(),
                w.smoothed.data());
      mix(field_.data() + static_cast<std::size_t>(k) * plane, w.smoothed.data(), plane, a, b);
    }
  }
  ++steps_;
}

ParcelAverager::ParcelAverager(const LabelVolume& parcels, std::int64_t count) {
  first_.assign(static_cast<std::size_t>(count) + 1, 0);
  for (const auto l : parcels.labels)
    if (l > 0 && l <= count) ++first_[static_cast<std::size_t>(l)];
  for (std::size_t p = 1; p < first_.size(); ++p) first_[p] += first_[p - 1];
  members_.resize(static_cast<std::size_t>(first_.back()));
  std::vector<std::int64_t> next(first_.begin(), first_.end() - 1);
  for (std::size_t v = 0; v < parcels.labels.size(); ++v) {
    const auto l = parcels.labels[v];
    if (l > 0 && l <= count)
      members_[static_cast<std::size_t>(next[static_cast<std::size_t>(l - 1)]++)] = static_cast<std::int64_t>(v);
  }
}

void ParcelAverager::average(const float* field, float* out) const {
  for (std::size_t p = 0; p + 1 < first_.size(); ++p) {
    double sum = 0;
    for (auto k = first_[p]; k < first_[p + 1]; ++k) sum += field[members_[static_cast<std::size_t>(k)]];
    const auto n = first_[p + 1] - first_[p];
    out[p] = n > 0 ? static_cast<float>(sum / static_cast<double>(n)) : 0.0f;
  }
}

}  // namespace loci::sim::volume
