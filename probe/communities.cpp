#include "probe/communities.hpp"

#include <Eigen/Eigenvalues>

#include <cmath>
#include <map>
#include <stdexcept>
#include <string>

namespace loci::probe {

namespace {

// A split of `members` raises Q by (1/4m) s^T B^(g) s; B^(g)_ij = B_ij - delta_ij sum_{k in g} B_ik.
std::vector<std::vector<Eigen::Index>> split(const Eigen::MatrixXd& b, const std::vector<Eigen::Index>& members) {
  const auto n = static_cast<Eigen::Index>(members.size());
  if (n < 2) return {};
  Eigen::MatrixXd bg(n, n);
  for (Eigen::Index i = 0; i < n; ++i)
    for (Eigen::Index j = 0; j < n; ++j) bg(i, j) = b(members[i], members[j]);
  const Eigen::VectorXd row_sums = bg.rowwise().sum();
  bg.diagonal() -= row_sums;
  Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> eig(bg);
  if (eig.info() != Eigen::Success) return {};
  const Eigen::VectorXd v = eig.eigenvectors().col(n - 1);  // eigenvalues ascend: the last is the largest
  Eigen::VectorXd s(n);
  for (Eigen::Index i = 0; i < n; ++i) s(i) = v(i) > 1e-12 ? 1.0 : -1.0;
  if (s.cwiseEqual(s(0)).all()) return {};
  const double gain = s.dot(bg * s);
  if (!(gain > 1e-10 * bg.cwiseAbs().sum())) return {};
  std::vector<std::vector<Eigen::Index>> parts(2);
  for (Eigen::Index i = 0; i < n; ++i) parts[s(i) > 0 ? 0 : 1].push_back(members[i]);
  return parts;
}

}  // namespace

std::vector<int> leading_eigenvector_communities(const Eigen::MatrixXd& weights) {
  if (weights.rows() != weights.cols())
    throw std::invalid_argument("leading_eigenvector_communities: weight matrix is " + std::to_string(weights.rows()) +
                                "x" + std::to_string(weights.cols()) + ", not square");
  const Eigen::Index n = weights.rows();
  Eigen::MatrixXd a = 0.5 * (weights + weights.transpose());
  a = a.unaryExpr([](double w) { return std::isnan(w) || w < 0 ? 0.0 : w; });
  a.diagonal().setZero();
  const Eigen::VectorXd k = a.rowwise().sum();
  const double two_m = k.sum();
  std::vector<int> label(static_cast<std::size_t>(n), 0);
  if (!(two_m > 0)) return label;
  const Eigen::MatrixXd b = a - k * k.transpose() / two_m;

  std::vector<std::vector<Eigen::Index>> done, pending(1);
  for (Eigen::Index i = 0; i < n; ++i) pending[0].push_back(i);
  while (!pending.empty()) {
    auto group = std::move(pending.back());
    pending.pop_back();
    auto parts = split(b, group);
    if (parts.empty()) {
      done.push_back(std::move(group));
    } else {
      pending.push_back(std::move(parts[1]));
      pending.push_back(std::move(parts[0]));
    }
  }
  // Number the communities by their first (lowest) token, so the labels do not depend on the order of splits.
  std::map<Eigen::Index, const std::vector<Eigen::Index>*> by_first;
  for (const auto& g : done) by_first.emplace(g.front(), &g);
  int next = 0;
  for (const auto& [first, g] : by_first) {
    for (Eigen::Index i : *g) label[static_cast<std::size_t>(i)] = next;
    ++next;
  }
  return label;
}

}  // namespace loci::probe
