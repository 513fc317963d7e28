#include "probe/modularity.hpp"

#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

#include "probe/distance.hpp"

namespace loci::probe {

Eigen::MatrixXd similarity_matrix(const Eigen::MatrixXd& pe, Similarity similarity) {
  const Metric metric = similarity == Similarity::cosine ? Metric::cosine : Metric::correlation;
  return (1.0 - pairwise_distance(pe, metric).array()).matrix();
}

double modularity(const Eigen::MatrixXd& weights, const std::vector<int>& partition) {
  if (weights.rows() != weights.cols())
    throw std::invalid_argument("modularity: weight matrix is " + std::to_string(weights.rows()) + "x" +
                                std::to_string(weights.cols()) + ", not square");
  const Eigen::Index n = weights.rows();
  if (static_cast<Eigen::Index>(partition.size()) != n)
    throw std::invalid_argument("modularity: partition has " + std::to_string(partition.size()) + " labels for " +
                                std::to_string(n) + " tokens");
  Eigen::MatrixXd a = 0.5 * (weights + weights.transpose());
  a = a.unaryExpr([](double w) { return std::isnan(w) || w < 0 ? 0.0 : w; });
  const Eigen::VectorXd degree = a.rowwise().sum();
  const double two_m = degree.sum();
  if (!(two_m > 0)) return std::numeric_limits<double>::quiet_NaN();
  double q = 0;
  for (Eigen::Index i = 0; i < n; ++i)
    for (Eigen::Index j = 0; j < n; ++j)
      if (partition[static_cast<std::size_t>(i)] == partition[static_cast<std::size_t>(j)])
        q += a(i, j) - degree(i) * degree(j) / two_m;
  return q / two_m;
}

double pe_modularity(const Eigen::MatrixXd& pe, const std::vector<int>& partition, const ModularityOptions& options) {
  Eigen::MatrixXd s = similarity_matrix(pe, options.similarity);
  if (!options.self_loops) s.diagonal().setZero();
  return modularity(s, partition);
}

}  // namespace loci::probe
