#include "probe/attention.hpp"

#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

namespace loci::probe {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

double cosine_from(double dot, double sq_a, double sq_b) {
  const double denom = std::sqrt(sq_a) * std::sqrt(sq_b);
  return denom > 0 ? dot / denom : kNaN;
}

}  // namespace

double flat_cosine(const Eigen::MatrixXd& a, const Eigen::MatrixXd& b) {
  if (a.rows() != b.rows() || a.cols() != b.cols())
    throw std::invalid_argument("flat_cosine: maps are " + std::to_string(a.rows()) + "x" + std::to_string(a.cols()) +
                                " and " + std::to_string(b.rows()) + "x" + std::to_string(b.cols()));
  return cosine_from(a.cwiseProduct(b).sum(), a.squaredNorm(), b.squaredNorm());
}

AttentionSimilarity attention_cosine(const std::vector<Eigen::MatrixXd>& a, const std::vector<Eigen::MatrixXd>& b) {
  if (a.size() != b.size())
    throw std::invalid_argument("attention_cosine: " + std::to_string(a.size()) + " layers against " +
                                std::to_string(b.size()));
  AttentionSimilarity out;
  out.per_layer.resize(static_cast<Eigen::Index>(a.size()));
  double dot = 0, sq_a = 0, sq_b = 0, sum = 0;
  int counted = 0;
  for (std::size_t l = 0; l < a.size(); ++l) {
    const double c = flat_cosine(a[l], b[l]);
    out.per_layer(static_cast<Eigen::Index>(l)) = c;
    if (!std::isnan(c)) {
      sum += c;
      ++counted;
    }
    dot += a[l].cwiseProduct(b[l]).sum();
    sq_a += a[l].squaredNorm();
    sq_b += b[l].squaredNorm();
  }
  out.overall = cosine_from(dot, sq_a, sq_b);
  out.mean_per_layer = counted > 0 ? sum / counted : kNaN;
  return out;
}

}  // namespace loci::probe
