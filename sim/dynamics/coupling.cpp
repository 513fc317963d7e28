#include "cpu/clones.hpp"  // first: it sets how the loops below are compiled

#include "sim/dynamics/coupling.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

namespace loci::sim::dynamics {

namespace {

// The lane count as a compile-time constant lets the inner loops become a few full-width vector instructions;
// other counts take the generic path, which does the same arithmetic in the same order.
template <std::size_t L>
LOCI_CLONES void sparse_product(const Coupling::Sparse& w, const double* x, double* y, std::size_t lanes_at_run_time) {
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
LOCI_CLONES void dense_product(const Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>& w,
                               const double* x, double* y, std::size_t lanes_at_run_time) {
  const std::size_t lanes = L ? L : lanes_at_run_time;
  const auto n = static_cast<std::size_t>(w.cols());
  for (Eigen::Index i = 0; i < w.rows(); ++i) {
    double* yi = y + static_cast<std::size_t>(i) * lanes;
    const double* row = w.data() + static_cast<std::size_t>(i) * n;
    if (L) {  // as in sparse_product: the sum in registers
      double sum[L ? L : 1] = {};
      for (std::size_t j = 0; j < n; ++j) {
        const double wk = row[j];
        const double* xj = x + j * lanes;
#pragma omp simd
        for (std::size_t l = 0; l < L; ++l) sum[l] = std::fma(wk, xj[l], sum[l]);
      }
      for (std::size_t l = 0; l < L; ++l) yi[l] = sum[l];
      continue;
    }
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
      case Normalisation::in_degree:
        return 1.0 / degree[j];
      case Normalisation::row:
        return 1.0 / degree[i];
      case Normalisation::none:
        break;
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

void Coupling::delay_by(const std::function<std::int64_t(std::size_t i, std::size_t j)>& steps) {
  std::vector<std::int32_t> delays(static_cast<std::size_t>(sparse_.nonZeros()));
  std::size_t longest = 0;
  const auto* outer = sparse_.outerIndexPtr();
  const auto* inner = sparse_.innerIndexPtr();
  for (Eigen::Index i = 0; i < sparse_.rows(); ++i)
    for (auto k = outer[i]; k < outer[i + 1]; ++k) {
      const std::int64_t d = steps(static_cast<std::size_t>(i), static_cast<std::size_t>(inner[k]));
      if (d < 0 || d > (1 << 24))
        throw std::invalid_argument("coupling: delay of " + std::to_string(d) + " steps from node " +
                                    std::to_string(inner[k]) + " to node " + std::to_string(i) +
                                    " (must be 0 .. 16777216)");
      delays[static_cast<std::size_t>(k)] = static_cast<std::int32_t>(d);
      longest = std::max(longest, static_cast<std::size_t>(d));
    }
  max_delay_ = longest;
  if (longest > 0)
    delays_ = std::move(delays);
  else
    delays_.clear();
}

std::int64_t Coupling::delay(std::size_t i, std::size_t j) const {
  if (delays_.empty()) return 0;
  const auto* outer = sparse_.outerIndexPtr();
  const auto* inner = sparse_.innerIndexPtr();
  for (auto k = outer[i]; k < outer[i + 1]; ++k)
    if (static_cast<std::size_t>(inner[k]) == j) return delays_[static_cast<std::size_t>(k)];
  return 0;
}

void Coupling::apply_delayed(const double* x, const StateHistory& history, std::size_t offset, std::size_t stage,
                             double* y, std::size_t lanes) const {
  if (delays_.empty()) return apply(x, y, lanes);
  if (max_delay_ > history.max_lag() + stage || stage > 1)
    throw std::logic_error("coupling: the state history is shorter than the longest delay, or a stage is past t + dt");
  // source[d]: where the values d steps before the stage's time start. d = 0 reads the stage's own state;
  // otherwise the accepted state at lag d - stage (stage <= 1 for the integrators here and every delay > 0 is a
  // whole step, so that state is in the history). Looked up once per call: the ring's modulo per entry costs more
  // than the product.
  std::vector<const double*> source(max_delay_ + 1);
  source[0] = x;
  for (std::size_t d = 1; d <= max_delay_; ++d) source[d] = history.at(d - stage) + offset;
  const auto* outer = sparse_.outerIndexPtr();
  const auto* inner = sparse_.innerIndexPtr();
  const double* values = sparse_.valuePtr();
  const std::int32_t* delays = delays_.data();
  for (Eigen::Index i = 0; i < sparse_.rows(); ++i) {
    double* yi = y + static_cast<std::size_t>(i) * lanes;
    if (lanes == 1) {  // one run: a scalar sum, in the same order
      double sum = 0.0;
      for (auto k = outer[i]; k < outer[i + 1]; ++k) sum = std::fma(values[k], source[delays[k]][inner[k]], sum);
      *yi = sum;
      continue;
    }
    for (std::size_t l = 0; l < lanes; ++l) yi[l] = 0.0;
    for (auto k = outer[i]; k < outer[i + 1]; ++k) {
      const double wk = values[k];
      const double* xj = source[static_cast<std::size_t>(delays[k])] + static_cast<std::size_t>(inner[k]) * lanes;
#pragma omp simd
      for (std::size_t l = 0; l < lanes; ++l) yi[l] = std::fma(wk, xj[l], yi[l]);
    }
  }
}

void Coupling::apply(const double* x, double* y, std::size_t lanes) const {
  if (is_dense()) {
    switch (lanes) {
      case 1:
        return dense_product<1>(dense_, x, y, lanes);  // one run, e.g. a parcel network's subject
      case 4:
        return dense_product<4>(dense_, x, y, lanes);
      case 8:
        return dense_product<8>(dense_, x, y, lanes);
      case 16:
        return dense_product<16>(dense_, x, y, lanes);
      default:
        return dense_product<0>(dense_, x, y, lanes);
    }
  }
  switch (lanes) {
    case 1:
      return sparse_product<1>(sparse_, x, y, lanes);
    case 4:
      return sparse_product<4>(sparse_, x, y, lanes);
    case 8:
      return sparse_product<8>(sparse_, x, y, lanes);
    case 16:
      return sparse_product<16>(sparse_, x, y, lanes);
    default:
      return sparse_product<0>(sparse_, x, y, lanes);
  }
}

}  // namespace loci::sim::dynamics
