#include "apps/analysis/functional_connectivity.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "datasets/error.hpp"

namespace loci::analysis {

namespace {

bool is_float(datasets::DType t) { return t == datasets::DType::f32 || t == datasets::DType::f64; }

bool has_array(const datasets::Dataset& ds, const std::string& name) {
  for (const auto& a : ds.arrays())
    if (a.name == name) return true;
  return false;
}

// Samples [first, first + count) as doubles, one sample after another.
std::vector<double> read_doubles(const datasets::Dataset& ds, const std::string& split, const datasets::ArrayInfo& info,
                                 std::int64_t first, std::int64_t count) {
  if (info.dtype == datasets::DType::f64) return ds.read<double>(split, info.name, first, count);
  const std::vector<float> f = ds.read<float>(split, info.name, first, count);
  return std::vector<double>(f.begin(), f.end());
}

}  // namespace

std::string activity_array(const datasets::Dataset& ds, const std::string& configured_input) {
  std::string name = configured_input;
  if (name.empty() || name == "auto") name = has_array(ds, "tokens") ? "tokens" : "activity";
  if (!has_array(ds, name)) return "";
  const auto& info = ds.array(name);
  return is_float(info.dtype) && !info.shape.empty() ? name : "";
}

Eigen::MatrixXd functional_connectivity(const datasets::Dataset& ds, const std::string& split,
                                        const std::string& array) {
  const datasets::ArrayInfo& info = ds.array(array);
  if (!info.per_sample || !is_float(info.dtype) || info.shape.empty())
    throw datasets::DataError(ds.path(),
                              "array '" + array + "' is not a floating-point per-sample [token, time] array");
  const Eigen::Index tokens = info.shape[0];
  const Eigen::Index points = info.elements() / std::max<Eigen::Index>(1, tokens);
  // Sums of x and of x x^T over every (window, time) point; each block is a window's tokens x time.
  Eigen::VectorXd sum = Eigen::VectorXd::Zero(tokens);
  Eigen::MatrixXd cross = Eigen::MatrixXd::Zero(tokens, tokens);
  double n = 0;
  const std::int64_t total = ds.samples(split), chunk = 256;
  for (std::int64_t first = 0; first < total; first += chunk) {
    const std::int64_t count = std::min(chunk, total - first);
    std::vector<double> values = read_doubles(ds, split, info, first, count);
    for (std::int64_t s = 0; s < count; ++s) {
      const Eigen::Map<const Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>> x(
          values.data() + s * tokens * points, tokens, points);
      sum += x.rowwise().sum();
      cross.noalias() += x * x.transpose();
      n += static_cast<double>(points);
    }
  }
  const double nan = std::numeric_limits<double>::quiet_NaN();
  Eigen::MatrixXd fc = Eigen::MatrixXd::Constant(tokens, tokens, nan);
  if (n < 2) return fc;
  const Eigen::VectorXd mean = sum / n;
  const Eigen::MatrixXd cov = cross / n - mean * mean.transpose();
  for (Eigen::Index i = 0; i < tokens; ++i)
    for (Eigen::Index j = 0; j < tokens; ++j) {
      const double denom = std::sqrt(cov(i, i) * cov(j, j));
      fc(i, j) = denom > 0 ? std::clamp(cov(i, j) / denom, -1.0, 1.0) : nan;
    }
  fc.diagonal().setOnes();
  return fc;
}

}  // namespace loci::analysis
