// What a dataset records about its parcels: centroids in mm (the tokens' true positions), volumes, hemispheres,
// which parcels share a face, and distances between centroids.
#pragma once

#include <Eigen/Dense>
#include <cstdint>
#include <vector>

#include "sim/volume/grid.hpp"

namespace loci::sim::volume {

struct ParcelFacts {
  Eigen::MatrixXd centroids;             // P x 3, mm: the mean of each parcel's voxel centres
  std::vector<std::int64_t> voxels;      // P
  std::vector<double> volumes_mm3;       // P
  std::vector<std::uint8_t> hemisphere;  // P: 0 = left (centroid x < 0 mm), 1 = right
  std::vector<std::uint8_t> adjacency;   // P x P, row-major: 1 where two parcels share a voxel face

  std::int64_t parcels() const { return centroids.rows(); }
};

// Facts of parcels labelled 1..P. std::invalid_argument for a label above P or a parcel without voxels.
ParcelFacts describe_parcels(const LabelVolume& parcels, std::int64_t count);

// 0 = left (x < 0 mm), 1 = right, for each row of `centroids`.
std::vector<std::uint8_t> hemispheres(const Eigen::MatrixXd& centroids);

// Euclidean distances between rows (P x P, row-major).
std::vector<float> distance_matrix(const Eigen::MatrixXd& points);

// Consecutive labels 1..K for the distinct non-zero labels of `volume` (ascending); returns the original label of
// each new one.
std::vector<std::int32_t> relabel_consecutive(LabelVolume& volume);

}  // namespace loci::sim::volume
