#include "sim/dynamics/simd.hpp"  // first: it sets how the loops below are compiled
#include "sim/dynamics/coupling.hpp"

#include <cmath>
#include <stdexcept>

namespace loci::sim::dynamics {

namespace {

// The lane count as a compile-time constant lets the inner loops become a few full-width vector instructions;
// other counts take the generic path, which does the same arithmetic in the same order.
template <std::size_t L>
LOCI_SIMD_CLONES void sparse_product(const Coupling::Sparse& w, const double* x, double* y,
                                     std::size_t lanes_at_run_time) {
  const std::size_t lanes = L ? L : lanes_at_run_time;
  const auto* outer = w.outerIndexPtr();
  const auto* inner = w.innerIndexPtr();
  const double* values = w.valuePtr();
  for (Eigen::Index i = 0; i < w.rows(); ++i) {
    double* yi = y + static_cast<std::size_t>(i) * lanes;
    if (L) {  // the sum in registers, stored once: y might alias x as far as the compiler knows
      double sum[L ? L : 1] = {};
      for (auto k = outer[i]; k < outer[i + 1]; ++k) {
        const double wk = values[k];
        const double* xj = x + static_cast<std::size_t>(inner[k]) * lanes;
#pragma omp simd
        for (std::size_t l = 0; l < L; ++l) sum[l] = std::fma(wk, xj[l], sum[l]);
      }
      for (std::size_t l = 0; l < L; ++l) yi[l] = sum[l];
      continue;
    }
    for (std::size_t l = 0; l < lanes; ++l) yi[l] = 0.0;
    for (auto k = outer[i]; k < outer[i + 1]; ++k) {
      const double wk = values[k];
      const double* xj = x + static_cast<std::size_t>(inner[k]) * lanes;
#pragma omp simd
      for (std::size_t l = 0; l < lanes; ++l) yi[l] = std::fma(wk, xj[l], yi[l]);
    }
  }
}

template <std::size_t L>
LOCI_SIMD_CLONES void dense_product(const Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>& w,
                                    const double* x, double* y, std::size_t lanes_at_run_time) {
  const std::size_t lanes = L ? L : lanes_at_run_time;
  const auto n = static_cast<std::size_t>(w.cols());
  for (Eigen::Index i = 0; i < w.rows(); ++i) {
    double* yi = y + static_cast<std::size_t>(i) * lanes;
    const double* row = w.data() + static_cast<std::size_t>(i) * n;
    for (std::size_t l = 0; l < lanes; ++l) yi[l] = 0.0;
    for (std::size_t j = 0; j < n; ++j) {
      const double wk = row[j];
      const double* xj = x + j * lanes;
#pragma omp simd
      for (std::size_t l = 0; l < lanes; ++l) yi[l] = std::fma(wk, xj[l], yi[l]);
    }
  }
}

}  // namespace

Coupling::Coupling(Sparse w, double dense_above) : sparse_(std::move(w)) {
  if (sparse_.rows() != sparse_.cols()) throw std::invalid_argument("coupling matrix must be square");
  sparse_.makeCompressed();
  if (density() > dense_above) dense_ = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>(sparse_);
}

Coupling Coupling::from_edges(std::size_t nodes, const std::vector<std::pair<std::size_t, std::size_t>>& edges,
                              Normalisation normalisation, double dense_above) {
  std::vector<double> degree(nodes, 0.0);
  for (const auto& [u, v] : edges) {
    if (u >= nodes || v >= nodes) throw std::out_of_range("coupling: edge names a node out of range");
    if (u == v) throw std::invalid_argument("coupling: self-loop in the edge list");
    degree[u] += 1;
    degree[v] += 1;
  }
  std::vector<Eigen::Triplet<double>> entries;
  entries.reserve(edges.size() * 2);
  // Entry (i, j) is the weight with which node j drives node i.
  auto weight = [&](std::size_t i, std::size_t j) {
    switch (normalisation) {
      case Normalisation::in_degree: return 1.0 / degree[j];
      case Normalisation::row: return 1.0 / degree[i];
      case Normalisation::none: break;
    }
    return 1.0;
  };
  for (const auto& [u, v] : edges) {
    entries.emplace_back(static_cast<int>(u), static_cast<int>(v), weight(u, v));
    entries.emplace_back(static_cast<int>(v), static_cast<int>(u), weight(v, u));
  }
  Sparse w(static_cast<Eigen::Index>(nodes), static_cast<Eigen::Index>(nodes));
  // Duplicates would be summed: an edge listed twice is a caller's bug that must not double a weight silently.
  w.setFromTriplets(entries.begin(), entries.end(),
                    [](double, double) -> double { throw std::invalid_argument("coupling: an edge is listed twice"); });
  return Coupling(std::move(w), dense_above);
}

double Coupling::density() const {
  const double n = static_cast<double>(sparse_.rows());
  return n > 0 ? static_cast<double>(sparse_.nonZeros()) / (n * n) : 0.0;
}

void Coupling::apply(const double* x, double* y, std::size_t lanes) const {
  if (is_dense()) {
    switch (lanes) {
      case 4: return dense_product<4>(dense_, x, y, lanes);
      case 8: return dense_product<8>(dense_, x, y, lanes);
      case 16: return dense_product<16>(dense_, x, y, lanes);
      default: return dense_product<0>(dense_, x, y, lanes);
    }
  }
  switch (lanes) {
    case 4: return sparse_product<4>(sparse_, x, y, lanes);
    case 8: return sparse_product<8>(sparse_, x, y, lanes);
    case 16: return sparse_product<16>(sparse_, x, y, lanes);
    default: return sparse_product<0>(sparse_, x, y, lanes);
  }
}

}  // namespace loci::sim::dynamics
