#include "models/interventions/point_symmetries.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <set>

#include "models/interventions/intervention.hpp"

namespace loci::models {

namespace {

using Points = std::vector<std::vector<double>>;

Points centred(const torch::Tensor& positions) {
  const torch::Tensor p = positions.to(torch::kFloat64).contiguous();
  const int64_t n = p.size(0), dims = p.size(1);
  Points out(static_cast<size_t>(n), std::vector<double>(static_cast<size_t>(dims)));
  const double* v = p.data_ptr<double>();
  for (int64_t k = 0; k < dims; ++k) {
    double mean = 0;
    for (int64_t i = 0; i < n; ++i) mean += v[i * dims + k];
    mean /= static_cast<double>(n);
    for (int64_t i = 0; i < n; ++i) out[static_cast<size_t>(i)][static_cast<size_t>(k)] = v[i * dims + k] - mean;
  }
  return out;
}

double squared_distance(const std::vector<double>& a, const std::vector<double>& b) {
  double s = 0;
  for (size_t k = 0; k < a.size(); ++k) s += (a[k] - b[k]) * (a[k] - b[k]);
  return s;
}

std::string axis_name(size_t k) { return k < 3 ? std::string(1, "xyz"[k]) : "a" + std::to_string(k); }

// The exact relabelling a signed axis permutation makes of the point set, or empty where some point lands on none.
std::vector<int64_t> exact_relabelling(const Points& p, const std::vector<size_t>& axes, const std::vector<int>& signs,
                                       double tolerance) {
  std::vector<int64_t> perm(p.size(), -1);
  std::vector<bool> used(p.size(), false);
  for (size_t i = 0; i < p.size(); ++i) {
    std::vector<double> q(axes.size());
    for (size_t k = 0; k < axes.size(); ++k) q[k] = signs[k] * p[i][axes[k]];
    for (size_t j = 0; j < p.size(); ++j)
      if (!used[j] && squared_distance(q, p[j]) <= tolerance * tolerance) {
        perm[i] = static_cast<int64_t>(j);
        used[j] = true;
        break;
      }
    if (perm[i] < 0) return {};
  }
  return perm;
}

}  // namespace

std::vector<int64_t> min_cost_assignment(const std::vector<std::vector<double>>& cost) {
  // Potentials u (rows), v (columns); way[j] the column before j on the augmenting path; 1-based with a virtual 0.
  const size_t n = cost.size();
  const double inf = std::numeric_limits<double>::infinity();
  std::vector<double> u(n + 1, 0), v(n + 1, 0);
  std::vector<size_t> row_of(n + 1, 0), way(n + 1, 0);
  for (size_t i = 1; i <= n; ++i) {
    row_of[0] = i;
    size_t j0 = 0;
    std::vector<double> least(n + 1, inf);
    std::vector<bool> done(n + 1, false);
    do {
      done[j0] = true;
      const size_t i0 = row_of[j0];
      double delta = inf;
      size_t j1 = 0;
      for (size_t j = 1; j <= n; ++j)
        if (!done[j]) {
          const double c = cost[i0 - 1][j - 1] - u[i0] - v[j];
          if (c < least[j]) least[j] = c, way[j] = j0;
          if (least[j] < delta) delta = least[j], j1 = j;
        }
      for (size_t j = 0; j <= n; ++j)
        if (done[j])
          u[row_of[j]] += delta, v[j] -= delta;
        else
          least[j] -= delta;
      j0 = j1;
    } while (row_of[j0] != 0);
    do {
      const size_t j1 = way[j0];
      row_of[j0] = row_of[j1];
      j0 = j1;
    } while (j0);
  }
  std::vector<int64_t> column(n, -1);
  for (size_t j = 1; j <= n; ++j)
    if (row_of[j]) column[row_of[j] - 1] = static_cast<int64_t>(j - 1);
  return column;
}

std::vector<PointSymmetry> point_symmetries(const torch::Tensor& positions) {
  const Points p = centred(positions);
  const size_t dims = p.empty() ? 0 : p.front().size();
  double extent = 0;
  for (const auto& x : p)
    for (double c : x) extent = std::max(extent, std::abs(c));
  const double tolerance = 1e-6 * std::max(extent, 1.0);
  std::vector<int64_t> identity(p.size());
  std::iota(identity.begin(), identity.end(), 0);

  std::vector<PointSymmetry> out;
  std::set<std::vector<int64_t>> seen{identity};
  std::vector<size_t> axes(dims);
  std::iota(axes.begin(), axes.end(), 0);
  do {
    for (unsigned mask = 0; mask < (1u << dims); ++mask) {
      std::vector<int> signs(dims);
      for (size_t k = 0; k < dims; ++k) signs[k] = (mask >> k) & 1u ? -1 : 1;
      const auto perm = exact_relabelling(p, axes, signs, tolerance);
      if (perm.empty() || !seen.insert(perm).second) continue;
      std::string name = "(";
      for (size_t k = 0; k < dims; ++k)
        name += (k ? "," : "") + std::string(signs[k] < 0 ? "-" : "") + axis_name(axes[k]);
      out.push_back({name + ")", perm, distance_distortion(positions, perm), true});
    }
  } while (std::next_permutation(axes.begin(), axes.end()));
  if (!out.empty()) return out;

  // No exact symmetry: each axis's mirror, every token matched to a distinct token nearest its mirror image.
  for (size_t k = 0; k < dims; ++k) {
    double spread = 0;
    for (const auto& x : p) spread = std::max(spread, std::abs(x[k]));
    if (spread <= tolerance) continue;
    std::vector<std::vector<double>> cost(p.size(), std::vector<double>(p.size()));
    for (size_t i = 0; i < p.size(); ++i) {
      std::vector<double> q = p[i];
      q[k] = -q[k];
      for (size_t j = 0; j < p.size(); ++j) cost[i][j] = squared_distance(q, p[j]);
    }
    const auto perm = min_cost_assignment(cost);
    if (!seen.insert(perm).second) continue;
    out.push_back({"mirror " + axis_name(k) + " (nearest)", perm, distance_distortion(positions, perm), false});
  }
  return out;
}

}  // namespace loci::models
