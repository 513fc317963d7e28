// The coupling matrix W of a network model and its product with the state of several runs at once.
//
// Runs advance together in "lanes": a batch's state is laid out node-major with the lanes innermost
// (x[node * lanes + lane]), so one W entry multiplies a contiguous vector of lanes and the product vectorises across
// runs. Each output value is accumulated in the same order (by fused multiply-adds over the row's entries in column
// order) whatever the lane count or thread count, which keeps a run's numbers independent of how runs are batched.
#pragma once

#include <Eigen/Dense>
#include <Eigen/SparseCore>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <utility>
#include <vector>

#include "sim/dynamics/history.hpp"

namespace loci::sim::dynamics {

enum class Normalisation {
  none,       // W = A
  in_degree,  // W = A D^-1: column j divided by its sum, the in-degree of j (the paper's rate model)
  row,        // W = D^-1 A: each node sees the mean of its neighbours
};

class Coupling {
 public:
  using Sparse = Eigen::SparseMatrix<double, Eigen::RowMajor>;

  Coupling() = default;
  // W as given. Stored dense above `dense_above` density, where skipping zeros no longer pays for the indices.
  explicit Coupling(Sparse w, double dense_above = 0.3);

  // The symmetric 0/1 adjacency of undirected `edges`, normalised. An isolated node's column (row) stays zero.
  static Coupling from_edges(std::size_t nodes, const std::vector<std::pair<std::size_t, std::size_t>>& edges,
                             Normalisation normalisation, double dense_above = 0.3);

  // y = W x for `lanes` runs: x and y hold nodes() * lanes values, lanes innermost. x and y must not overlap.
  void apply(const double* x, double* y, std::size_t lanes) const;

  // Conduction delays: what node j sends along entry (i, j) reaches node i steps(i, j) >= 0 steps later. Asked
  // once per entry W has. With every delay 0 the coupling stays instantaneous (apply() is all that is needed).
  void delay_by(const std::function<std::int64_t(std::size_t i, std::size_t j)>& steps);
  bool has_delays() const { return max_delay_ > 0; }
  std::size_t max_delay() const { return max_delay_; }
  std::int64_t delay(std::size_t i, std::size_t j) const;  // 0 for an entry W lacks

  // y_i = sum_j W_ij x_j(s - d_ij) for a stage evaluated `stage` (0 or 1) steps after history.at(0): x is the
  // stage's own block (used where d_ij = 0), the rest comes from history at lag d_ij - stage, `offset` values into
  // each stored state. Summed in the same order as apply(), so a run with every delay 0 gives the same numbers.
  void apply_delayed(const double* x, const StateHistory& history, std::size_t offset, std::size_t stage, double* y,
                     std::size_t lanes) const;

  std::size_t nodes() const { return static_cast<std::size_t>(sparse_.rows()); }
  double density() const;
  bool is_dense() const { return dense_.size() > 0; }
  const Sparse& matrix() const { return sparse_; }

 private:
  Sparse sparse_;
  Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor> dense_;  // empty unless dense
  std::vector<std::int32_t> delays_;  // per stored entry of sparse_, in its order; empty when instantaneous
  std::size_t max_delay_ = 0;
};

}  // namespace loci::sim::dynamics
