#include "apps/analysis/dataset_truth.hpp"

#include <algorithm>
#include <cstring>
#include <deque>
#include <variant>

#include "apps/analysis/functional_connectivity.hpp"
#include "datasets/reader.hpp"

namespace loci::analysis {

namespace {

template <class T>
Eigen::MatrixXd as_matrix(const datasets::Array& a, Eigen::Index rows, Eigen::Index cols) {
  Eigen::MatrixXd m(rows, cols);
  const auto* p = reinterpret_cast<const T*>(a.bytes.data());
  for (Eigen::Index i = 0; i < rows; ++i)
    for (Eigen::Index j = 0; j < cols; ++j) m(i, j) = static_cast<double>(p[i * cols + j]);
  return m;
}

// A dataset-level array as doubles when its shape is `shape` ([T] or [T, T]); empty otherwise.
Eigen::MatrixXd read_numeric(const datasets::Dataset& ds, const std::string& name,
                             const std::vector<std::int64_t>& shape) {
  for (const auto& info : ds.dataset_arrays())
    if (info.name == name) {
      if (info.shape != shape) return {};
      const datasets::Array a = ds.read_dataset_array(name);
      const Eigen::Index rows = shape[0], cols = shape.size() > 1 ? shape[1] : 1;
      switch (a.spec.dtype) {
        case datasets::DType::f32:
          return as_matrix<float>(a, rows, cols);
        case datasets::DType::f64:
          return as_matrix<double>(a, rows, cols);
        case datasets::DType::u8:
          return as_matrix<std::uint8_t>(a, rows, cols);
        case datasets::DType::i32:
          return as_matrix<std::int32_t>(a, rows, cols);
        case datasets::DType::i64:
          return as_matrix<std::int64_t>(a, rows, cols);
        default:
          return {};
      }
    }
  return {};
}

// Breadth-first hop counts from a 0/1 adjacency matrix; -1 for no path (as the network generator stores /hops).
Eigen::MatrixXd hops_from(const Eigen::MatrixXd& adjacency) {
  const Eigen::Index n = adjacency.rows();
  Eigen::MatrixXd hops = Eigen::MatrixXd::Constant(n, n, -1);
  for (Eigen::Index s = 0; s < n; ++s) {
    std::deque<Eigen::Index> queue{s};
    hops(s, s) = 0;
    while (!queue.empty()) {
      const Eigen::Index u = queue.front();
      queue.pop_front();
      for (Eigen::Index v = 0; v < n; ++v)
        if (adjacency(u, v) != 0 && hops(s, v) < 0) {
          hops(s, v) = hops(s, u) + 1;
          queue.push_back(v);
        }
    }
  }
  return hops;
}

void read_partition(const datasets::Dataset& ds, Eigen::Index tokens, DatasetTruth& t) {
  for (const auto& [name, what] :
       {std::pair<const char*, const char*>{"hemisphere", "hemispheres"}, {"block", "blocks of the block model"}}) {
    const Eigen::MatrixXd labels = read_numeric(ds, name, {tokens});
    if (labels.size() == 0) continue;
    for (Eigen::Index i = 0; i < tokens; ++i) t.partition.push_back(static_cast<int>(labels(i, 0)));
    t.partition_name = std::string(what) + " (the dataset's /" + name + ")";
    return;
  }
}

// The share of the split's samples whose target is each token: a task's own structure a PE could mirror.
void read_target_frequency(const datasets::Dataset& ds, const std::string& split, Eigen::Index tokens,
                           DatasetTruth& t) {
  const auto splits = ds.splits();
  if (std::find(splits.begin(), splits.end(), split) == splits.end()) return;
  for (const auto& info : ds.arrays())
    if (info.name == "target_cell" && info.per_sample && info.elements() == 1 && info.dtype == datasets::DType::u8) {
      const std::int64_t samples = ds.samples(split);
      if (samples == 0) return;
      const std::vector<std::uint8_t> cells = ds.read<std::uint8_t>(split, "target_cell", 0, samples);
      Eigen::VectorXd counts = Eigen::VectorXd::Zero(tokens);
      for (std::uint8_t c : cells)
        if (c < tokens) counts(c) += 1;
      t.target_frequency = counts / static_cast<double>(samples);
      t.target_split = split;
      return;
    }
}

}  // namespace

DatasetTruth dataset_truth(const TruthRequest& r) {
  DatasetTruth t;
  try {
    const datasets::Dataset ds = datasets::Dataset::open(r.data);
    t.generator = ds.index().generator;
    const auto attributes = ds.attributes();
    if (auto it = attributes.find("grid_n"); it != attributes.end() && std::holds_alternative<std::int64_t>(it->second))
      t.grid_n = std::get<std::int64_t>(it->second);
    t.distance = read_numeric(ds, "distance", {r.tokens, r.tokens});
    t.hops = read_numeric(ds, "hops", {r.tokens, r.tokens});
    if (t.hops.size() == 0) {
      const Eigen::MatrixXd adjacency = read_numeric(ds, "adjacency", {r.tokens, r.tokens});
      if (adjacency.size() > 0) t.hops = hops_from(adjacency);
    }
    if (t.hops.size() > 0) {
      // -1 marks "no path": farther than any path.
      const double far = t.hops.maxCoeff() + 1;
      t.hops = (t.hops.array() < 0).select(far, t.hops);
    }
    read_partition(ds, r.tokens, t);
    read_target_frequency(ds, r.train_split, r.tokens, t);
  } catch (const std::exception& e) {
    t.note = std::string("the dataset could not be read (") + e.what() + "); distances from pe.h5's positions";
    return t;
  }
  try {
    const datasets::Dataset ds = datasets::Dataset::open(r.data);
    const std::string activity = activity_array(ds, r.input);
    const auto splits = ds.splits();
    if (!activity.empty() && ds.array(activity).shape[0] == r.tokens &&
        std::find(splits.begin(), splits.end(), r.train_split) != splits.end()) {
      t.fc = functional_connectivity(ds, r.train_split, activity);
      t.fc_split = r.train_split;
    }
  } catch (const std::exception& e) {
    t.note = std::string("no functional connectivity: the training split could not be read (") + e.what() + ")";
  }
  return t;
}

}  // namespace loci::analysis
