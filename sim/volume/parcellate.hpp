// Parcellation of a mask into P parcels, each one face-connected piece.
//
// The mask's regions are the connected pieces of each of its labels (a hemisphere, an atlas region); parcels never
// cross a region's border and are shared among regions in proportion to their voxels (largest remainder; a piece
// too small for one parcel is left out). In each region: farthest-point seeds (the first drawn at random, each
// next the voxel farthest from all seeds so far), then Lloyd steps that move every seed to its parcel's centroid.
// Voxels go to the nearest seed in the power distance |x - seed|^2 - weight: with a size spread the weights grow
// for small parcels and shrink for large ones at every step, which drives sizes toward equal. Finally every parcel
// keeps its largest connected piece and stray pieces join the neighbour they touch most.
//
// Mirroring parcellates the left half (x < 0 mm) and copies it onto the right: parcel p + P/2 is the mirror image
// of parcel p. It needs a mask whose support is symmetric about x = 0; voxels centred on x = 0 are left out.
#pragma once

#include <Eigen/Dense>
#include <cstdint>
#include <vector>

#include "core/option.hpp"
#include "sim/volume/grid.hpp"

namespace loci::sim::volume {

class ParcellationOptions {
  LOCI_OPTION(std::int64_t, parcels) = 100;  // in all; even when mirrored
  LOCI_OPTION(int, lloyd_steps) = 30;
  // > 0: balance sizes so that every parcel ends within +-spread of its region's mean size (std::runtime_error
  // when the steps do not get there); 0: plain Lloyd steps, sizes as they fall.
  LOCI_OPTION(double, size_spread) = 0.25;
  LOCI_OPTION(bool, mirror) = false;
  LOCI_OPTION(int, threads) = 0;  // 0 = OpenMP's default; the result is the same for any count
};

struct Parcellation {
  LabelVolume labels;                // parcel p in 1..P where it lies, 0 elsewhere
  Eigen::MatrixXd seeds;             // P x 3, mm: the final generators
  std::vector<double> weights;       // P power weights, mm^2
  std::vector<std::int32_t> region;  // P: the mask region of each parcel (regions in voxel order)
  std::int64_t dropped = 0;          // mask voxels in no parcel (x = 0 when mirrored, pieces too small)
  std::int64_t moved = 0;            // voxels the connectivity repair moved to another parcel
  bool mirrored = false;
};

// std::invalid_argument for options that cannot be met (more parcels than voxels, an odd count when mirrored, an
// asymmetric mask); std::runtime_error when the sizes end outside the spread. Depends on (mask, options, seed) only.
Parcellation parcellate(const LabelVolume& mask, const ParcellationOptions& options, std::uint64_t seed);

// A subject's version of `base`: every seed moved by N(0, jitter_mm^2) along each axis (drawn from
// (seed, "jitter", subject); left seeds only when mirrored, then copied), the voxels of `base` reassigned among
// the parcels of their region with the same weights, and repaired to connected parcels. Parcel p stays parcel p.
Parcellation jitter(const Parcellation& base, double jitter_mm, std::uint64_t seed, std::uint64_t subject,
                    int threads = 0);

}  // namespace loci::sim::volume
