#include "probe/neighbours.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <stdexcept>
#include <string>

namespace loci::probe {

namespace {

void check_square(const Eigen::MatrixXd& m, const char* what) {
  if (m.rows() != m.cols())
    throw std::invalid_argument(std::string(what) + ": distance matrix is " + std::to_string(m.rows()) + "x" +
                                std::to_string(m.cols()) + ", not square");
}

// Finite distances of row i, largest magnitude: the scale the tie tolerance is relative to.
double row_scale(const Eigen::MatrixXd& distance, Eigen::Index i) {
  double largest = 0;
  for (Eigen::Index j = 0; j < distance.cols(); ++j)
    if (std::isfinite(distance(i, j))) largest = std::max(largest, std::abs(distance(i, j)));
  return largest;
}

// Others of token i sorted by distance, NaN last, with near-equal distances ordered by index.
std::vector<Eigen::Index> ranked_others(const Eigen::MatrixXd& distance, Eigen::Index i, double tie_tolerance) {
  std::vector<Eigen::Index> others;
  others.reserve(static_cast<std::size_t>(distance.cols()));
  for (Eigen::Index j = 0; j < distance.cols(); ++j)
    if (j != i) others.push_back(j);
  auto key = [&](Eigen::Index j) {
    const double d = distance(i, j);
    return std::isnan(d) ? std::numeric_limits<double>::infinity() : d;
  };
  std::stable_sort(others.begin(), others.end(), [&](Eigen::Index a, Eigen::Index b) { return key(a) < key(b); });
  // A comparator with a tolerance would not be a strict weak order, so ties are settled after sorting: each run
  // within tol of its first distance is put in index order.
  const double tol = tie_tolerance * row_scale(distance, i);
  for (std::size_t start = 0; start < others.size();) {
    std::size_t end = start + 1;
    while (end < others.size() && key(others[end]) - key(others[start]) <= tol) ++end;
    std::sort(others.begin() + static_cast<std::ptrdiff_t>(start), others.begin() + static_cast<std::ptrdiff_t>(end));
    start = end;
  }
  return others;
}

int clip_k(int k, Eigen::Index n) {
  return static_cast<int>(std::clamp<Eigen::Index>(k, 0, std::max<Eigen::Index>(n - 1, 0)));
}

}  // namespace

std::vector<std::vector<Eigen::Index>> nearest_neighbours(const Eigen::MatrixXd& distance, int k,
                                                          double tie_tolerance) {
  check_square(distance, "nearest_neighbours");
  const int kk = clip_k(k, distance.rows());
  std::vector<std::vector<Eigen::Index>> out(static_cast<std::size_t>(distance.rows()));
  for (Eigen::Index i = 0; i < distance.rows(); ++i) {
    std::vector<Eigen::Index> others = ranked_others(distance, i, tie_tolerance);
    others.resize(static_cast<std::size_t>(kk));
    out[static_cast<std::size_t>(i)] = std::move(others);
  }
  return out;
}

double knn_overlap(const Eigen::MatrixXd& pe_distance, const Eigen::MatrixXd& true_distance,
                   const KnnOptions& options) {
  check_square(pe_distance, "knn_overlap");
  check_square(true_distance, "knn_overlap");
  if (pe_distance.rows() != true_distance.rows())
    throw std::invalid_argument("knn_overlap: PE distances cover " + std::to_string(pe_distance.rows()) +
                                " tokens but true distances " + std::to_string(true_distance.rows()));
  const Eigen::Index n = pe_distance.rows();
  const int k = clip_k(options.k, n);
  if (k < 1) return std::numeric_limits<double>::quiet_NaN();

  const auto pe_nn = nearest_neighbours(pe_distance, k, options.tie_tolerance);
  double total = 0;
  for (Eigen::Index i = 0; i < n; ++i) {
    const std::vector<Eigen::Index> truth = ranked_others(true_distance, i, options.tie_tolerance);
    std::vector<bool> is_true_neighbour(static_cast<std::size_t>(n), false);
    if (options.include_true_ties) {
      const double kth = true_distance(i, truth[static_cast<std::size_t>(k - 1)]) +
                         options.tie_tolerance * row_scale(true_distance, i);
      for (Eigen::Index j : truth)
        if (true_distance(i, j) <= kth) is_true_neighbour[static_cast<std::size_t>(j)] = true;
    } else {
      for (int r = 0; r < k; ++r)
        is_true_neighbour[static_cast<std::size_t>(truth[static_cast<std::size_t>(r)])] = true;
    }
    int hits = 0;
    for (Eigen::Index j : pe_nn[static_cast<std::size_t>(i)]) hits += is_true_neighbour[static_cast<std::size_t>(j)];
    total += static_cast<double>(hits) / k;
  }
  return total / static_cast<double>(n);
}

}  // namespace loci::probe
