// A subject's activity per parcel: a smooth random field in the volume averaged over each parcel, and/or network
// dynamics (sim/dynamics) on the parcels with distance-dependent coupling, each standardised per parcel, mixed by
// weight, optionally passed through the balloon model, standardised again, plus observation noise.
#pragma once

#include <Eigen/Dense>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "sim/dynamics/coupling.hpp"
#include "sim/dynamics/simulate.hpp"
#include "sim/volume/balloon.hpp"
#include "sim/volume/grid.hpp"
#include "sim/volume/smooth_field.hpp"

namespace loci::sim::volume {

struct NetworkActivityOptions {
  std::string model = "rate";  // a sim::dynamics model, its parameters in `params` (the rest at their defaults)
  std::map<std::string, double> params;
  std::string integrator = "heun";
  dynamics::SimulationOptions simulation;  // dt, burn-in and steps per recorded point (one point per TR)
  double coupling_mm = 20;                 // length scale of the coupling, see distance_coupling
  double velocity_m_s = 0;                 // conduction velocity for delays d_ij / v; 0 = instantaneous coupling
};

struct ActivityOptions {
  double field_weight = 1;
  SmoothFieldOptions field;
  double network_weight = 0;
  NetworkActivityOptions network;
  bool balloon = false;
  BalloonOptions hemodynamics;
  double tr_s = 1.0;             // seconds per time point (the balloon model's clock)
  std::int64_t burn_in = 0;      // points made and dropped before the first one kept
  double observation_noise = 0;  // sd of white noise added last (the signal has sd 1 per parcel)
};

// W_ij = exp(-d_ij / length_mm) between distinct parcels i, j (d: centroid distance), each column divided by its sum
// as the paper's rate model normalises by in-degree; weights under 1e-6 of their column's largest are dropped.
dynamics::Coupling distance_coupling(const Eigen::MatrixXd& centroids, double length_mm);

// Conduction delays on `coupling`: entry (i, j) arrives round(d_ij / v / step_s) steps late, d_ij the centroid
// distance in mm, v = velocity_m_s. std::invalid_argument when every delay rounds to 0 steps (the steps are too long
// for the velocity: what was asked would silently be no delay at all).
void delay_by_distance(dynamics::Coupling& coupling, const Eigen::MatrixXd& centroids, double velocity_m_s,
                       double step_s);

// The smallest grid holding every labelled voxel (same spacing, the affine shifted to match), and its labels.
LabelVolume crop_to_labels(const LabelVolume& volume);

// `points` time points of subject `subject`: parcels x points float32, parcel-major. `parcels` is labelled 1..P
// (P = centroids.rows()). Streams: the field from (seed, "field", subject), the network run from
// (seed, "network", subject), the observation noise from (seed, "observation", subject). std::invalid_argument
// for bad options; std::runtime_error when the network diverges.
std::vector<float> simulate_activity(const LabelVolume& parcels, const Eigen::MatrixXd& centroids,
                                     const ActivityOptions& options, std::uint64_t seed, std::uint64_t subject,
                                     std::int64_t points);

// Each row (series[i * points + t]) shifted and scaled to mean 0 and sd 1; a constant row becomes 0.
void standardise(float* series, std::size_t rows, std::int64_t points);

}  // namespace loci::sim::volume
