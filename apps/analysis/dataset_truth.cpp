#include "apps/analysis/dataset_truth.hpp"

#include <cstring>

#include "datasets/reader.hpp"

namespace loci::analysis {

namespace {

template <class T> Eigen::MatrixXd as_matrix(const data::Array& a, Eigen::Index n) {
  Eigen::MatrixXd m(n, n);
  const auto* p = reinterpret_cast<const T*>(a.bytes.data());
  for (Eigen::Index i = 0; i < n; ++i)
    for (Eigen::Index j = 0; j < n; ++j) m(i, j) = static_cast<double>(p[i * n + j]);
  return m;
}

Eigen::MatrixXd square(const data::Dataset& ds, const std::string& name, Eigen::Index tokens) {
  for (const auto& info : ds.dataset_arrays())
    if (info.name == name) {
      if (info.shape != std::vector<std::int64_t>{tokens, tokens}) return {};
      const data::Array a = ds.read_dataset_array(name);
      switch (a.spec.dtype) {
        case data::DType::f32: return as_matrix<float>(a, tokens);
        case data::DType::f64: return as_matrix<double>(a, tokens);
        case data::DType::i32: return as_matrix<std::int32_t>(a, tokens);
        case data::DType::i64: return as_matrix<std::int64_t>(a, tokens);
        default: return {};
      }
    }
  return {};
}

}  // namespace

DatasetTruth dataset_truth(const std::filesystem::path& data, Eigen::Index tokens) {
  DatasetTruth t;
  try {
    const data::Dataset ds = data::Dataset::open(data);
    t.distance = square(ds, "distance", tokens);
    t.hops = square(ds, "hops", tokens);
    if (t.hops.size() > 0) {
      // -1 marks "no path": farther than any path.
      const double far = t.hops.maxCoeff() + 1;
      t.hops = (t.hops.array() < 0).select(far, t.hops);
    }
  } catch (const std::exception& e) {
    t.note = std::string("the dataset could not be read (") + e.what() + "); distances from pe.h5's positions";
  }
  return t;
}

}  // namespace loci::analysis
