#include "probe/rsa.hpp"

#include <stdexcept>
#include <string>

namespace loci::probe {

Rsa rsa_of_distances(const Eigen::MatrixXd& pe_distance, const Eigen::MatrixXd& true_distance, double tie_tolerance) {
  if (pe_distance.rows() != true_distance.rows() || pe_distance.cols() != true_distance.cols())
    throw std::invalid_argument("rsa: PE distances are " + std::to_string(pe_distance.rows()) + "x" +
                                std::to_string(pe_distance.cols()) + " but true distances are " +
                                std::to_string(true_distance.rows()) + "x" + std::to_string(true_distance.cols()));
  const Eigen::VectorXd a = upper_triangle(pe_distance);
  const Eigen::VectorXd b = upper_triangle(true_distance);
  return Rsa{spearman(a, b, tie_tolerance), pearson(a, b)};
}

Rsa rsa(const Eigen::MatrixXd& pe, const Eigen::MatrixXd& true_distance, const RsaOptions& options) {
  return rsa_of_distances(pairwise_distance(pe, options.pe_metric), true_distance, options.tie_tolerance);
}

Rsa rsa_to_coordinates(const Eigen::MatrixXd& pe, const Eigen::MatrixXd& coords, const RsaOptions& options) {
  return rsa(pe, pairwise_distance(coords, Metric::euclidean), options);
}

}  // namespace loci::probe
