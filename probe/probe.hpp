// Every number the analyses report for one PE against the true positions of its tokens (docs/SCIENCE.md, "Probes
// and analyses"), computed in one call, plus a flat (name, value) view for JSON and CSV writers.
#pragma once

#include <Eigen/Core>

#include <string>
#include <utility>
#include <vector>

#include "probe/decode.hpp"
#include "probe/distance.hpp"
#include "probe/modularity.hpp"
#include "probe/neighbours.hpp"
#include "probe/rsa.hpp"

namespace loci::probe {

struct ProbeOptions {
  // Distance between PE rows (rsa.pe_metric) for RSA and for k-NN overlap, and RSA's tie tolerance. MDS always
  // uses euclidean distance, the one classical MDS reproduces exactly.
  RsaOptions rsa;
  // True T x T distance (graph hops, geodesic, ...). Empty: euclidean distance between the coordinates.
  Eigen::MatrixXd true_distance;
  DecodeOptions decode;
  KnnOptions knn;
  int mds_dims = 2;
  // Community label of each token for modularity (grid rows, quadrants, hemispheres). Empty: modularity is NaN.
  std::vector<int> partition;
  ModularityOptions modularity;
};

// Undefined numbers (no oracle given, no partition, a constant PE, ...) are NaN, never a made-up 0: a writer should
// emit them as null / empty.
struct ProbeReport {
  Eigen::Index tokens = 0;      // T
  Eigen::Index pe_dims = 0;     // d
  Eigen::Index coord_dims = 0;  // k
  // Size of the PE: Frobenius norm and mean row norm.
  double norm_frobenius = 0;
  double norm_mean_row = 0;
  // Spearman and Pearson correlation between the upper triangles of the PE and true distance matrices.
  double rsa_spearman = 0;
  double rsa_pearson = 0;
  // Procrustes from the PE to the oracle PE: scipy's disparity (centred, unit norm, best rotation and scale, in
  // [0, 1]) and the raw residual ||PE R - oracle||_F (best rotation only). NaN without an oracle.
  double procrustes_oracle_disparity = 0;
  double procrustes_oracle_residual = 0;
  // The same against the true coordinates zero-padded to d columns. The raw residual is in mixed units (PE size
  // against coordinate size) and mostly tracks the PE norm; the disparity is the comparable one.
  double procrustes_coords_disparity = 0;
  double procrustes_coords_residual = 0;
  // Cross-validated ridge R^2 of the coordinates from the PE: mean over coordinate dims, pooled, and per dim.
  double decode_r2 = 0;
  double decode_r2_pooled = 0;
  Eigen::VectorXd decode_r2_per_dim;
  // Mean fraction of each token's k nearest PE neighbours that are among its k nearest true neighbours.
  double knn_overlap = 0;
  // Classical MDS of the PE's euclidean distances (T x mds_dims) and the share of spread it shows.
  Eigen::MatrixXd mds;
  double mds_explained = 0;
  // Newman's Q of the PE-similarity graph for options.partition.
  double modularity = 0;
};

// pe: T x d; coords: T x k; oracle_pe: T x d' (the 2d-fixed PE for the LST), or null. Throws
// std::invalid_argument when the row counts, the true distance's shape, or the partition's length disagree with T.
ProbeReport probe_pe(const Eigen::MatrixXd& pe, const Eigen::MatrixXd& coords, const ProbeOptions& options = {},
                     const Eigen::MatrixXd* oracle_pe = nullptr);

// The report as (name, value) pairs, in a fixed order, named as the fields above ("rsa_spearman", ...), with the
// per-dim R^2 as decode_r2_dim0, decode_r2_dim1, ... With with_embedding the MDS coordinates follow as
// mds_<token>_<dim> (T x mds_dims more entries; off by default as they belong in a plot, not a table).
std::vector<std::pair<std::string, double>> to_pairs(const ProbeReport& report, bool with_embedding = false);

}  // namespace loci::probe
