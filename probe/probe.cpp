#include "probe/probe.hpp"

#include <limits>
#include <stdexcept>
#include <string>

#include "probe/mds.hpp"
#include "probe/norm.hpp"
#include "probe/procrustes.hpp"

namespace loci::probe {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

void check_rows(const Eigen::MatrixXd& m, Eigen::Index tokens, const std::string& what) {
  if (m.rows() != tokens)
    throw std::invalid_argument("probe_pe: the PE has " + std::to_string(tokens) + " tokens but " + what + " has " +
                                std::to_string(m.rows()) + " rows");
}

}  // namespace

ProbeReport probe_pe(const Eigen::MatrixXd& pe, const Eigen::MatrixXd& coords, const ProbeOptions& options,
                     const Eigen::MatrixXd* oracle_pe) {
  const Eigen::Index t = pe.rows();
  check_rows(coords, t, "the coordinate matrix");
  if (oracle_pe) check_rows(*oracle_pe, t, "the oracle PE");
  const bool given_truth = options.true_distance.size() > 0;
  if (given_truth && (options.true_distance.rows() != t || options.true_distance.cols() != t))
    throw std::invalid_argument(
        "probe_pe: the true distance matrix is " + std::to_string(options.true_distance.rows()) + "x" +
        std::to_string(options.true_distance.cols()) + ", expected " + std::to_string(t) + "x" + std::to_string(t));
  if (!options.partition.empty() && static_cast<Eigen::Index>(options.partition.size()) != t)
    throw std::invalid_argument("probe_pe: the partition has " + std::to_string(options.partition.size()) +
                                " labels for " + std::to_string(t) + " tokens");

  ProbeReport r;
  r.tokens = t;
  r.pe_dims = pe.cols();
  r.coord_dims = coords.cols();

  const PeNorm norm = pe_norm(pe);
  r.norm_frobenius = norm.frobenius;
  r.norm_mean_row = norm.mean_row_norm;

  const Eigen::MatrixXd truth = given_truth ? options.true_distance : pairwise_distance(coords, Metric::euclidean);
  const Eigen::MatrixXd pe_distance = pairwise_distance(pe, options.rsa.pe_metric);
  const Rsa rsa = rsa_of_distances(pe_distance, truth, options.rsa.tie_tolerance);
  r.rsa_spearman = rsa.spearman;
  r.rsa_pearson = rsa.pearson;

  r.procrustes_oracle_disparity = oracle_pe ? procrustes_disparity(pe, *oracle_pe) : kNaN;
  r.procrustes_oracle_residual = oracle_pe ? procrustes_residual(pe, *oracle_pe) : kNaN;
  r.procrustes_coords_disparity = procrustes_disparity(pe, coords);
  r.procrustes_coords_residual = procrustes_residual(pe, coords);

  if (t >= 2) {
    const Decode dec = decode(pe, coords, options.decode);
    r.decode_r2 = dec.r2;
    r.decode_r2_pooled = dec.r2_pooled;
    r.decode_r2_per_dim = dec.r2_per_dim;
  } else {
    r.decode_r2 = r.decode_r2_pooled = kNaN;
    r.decode_r2_per_dim = Eigen::VectorXd::Constant(coords.cols(), kNaN);
  }

  r.knn_overlap = knn_overlap(pe_distance, truth, options.knn);

  const Eigen::MatrixXd euclid = options.rsa.pe_metric == Metric::euclidean ? pe_distance : pairwise_distance(pe);
  const Mds mds = classical_mds(euclid, options.mds_dims);
  r.mds = mds.embedding;
  r.mds_explained = mds.explained;

  r.modularity = options.partition.empty() ? kNaN : pe_modularity(pe, options.partition, options.modularity);
  return r;
}

std::vector<std::pair<std::string, double>> to_pairs(const ProbeReport& r, bool with_embedding) {
  std::vector<std::pair<std::string, double>> out = {
      {"tokens", static_cast<double>(r.tokens)},
      {"pe_dims", static_cast<double>(r.pe_dims)},
      {"coord_dims", static_cast<double>(r.coord_dims)},
      {"norm_frobenius", r.norm_frobenius},
      {"norm_mean_row", r.norm_mean_row},
      {"rsa_spearman", r.rsa_spearman},
      {"rsa_pearson", r.rsa_pearson},
      {"procrustes_oracle_disparity", r.procrustes_oracle_disparity},
      {"procrustes_oracle_residual", r.procrustes_oracle_residual},
      {"procrustes_coords_disparity", r.procrustes_coords_disparity},
      {"procrustes_coords_residual", r.procrustes_coords_residual},
      {"decode_r2", r.decode_r2},
      {"decode_r2_pooled", r.decode_r2_pooled},
  };
  for (Eigen::Index j = 0; j < r.decode_r2_per_dim.size(); ++j)
    out.emplace_back("decode_r2_dim" + std::to_string(j), r.decode_r2_per_dim(j));
  out.emplace_back("knn_overlap", r.knn_overlap);
  out.emplace_back("mds_explained", r.mds_explained);
  out.emplace_back("modularity", r.modularity);
  if (with_embedding)
    for (Eigen::Index i = 0; i < r.mds.rows(); ++i)
      for (Eigen::Index c = 0; c < r.mds.cols(); ++c)
        out.emplace_back("mds_" + std::to_string(i) + "_" + std::to_string(c), r.mds(i, c));
  return out;
}

}  // namespace loci::probe
