#include "apps/analysis/attention_term.hpp"

#include <algorithm>
#include <string>

namespace loci::analysis {

LogitArrays position_logit_arrays(const RunFolder& run, Eigen::Index tokens) {
  LogitArrays out;
  const std::string prefix = "position_logits_";
  for (const auto& [name, array] : run.pe.arrays)
    if (name.rfind(prefix, 0) == 0 && array.shape.size() == 4 && array.shape[2] == tokens && array.shape[3] == tokens)
      out.emplace_back(std::stoi(name.substr(prefix.size())), &array);
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<Eigen::MatrixXd> attention_term_dissimilarities(const LogitArrays& arrays, std::int64_t e) {
  std::vector<Eigen::MatrixXd> out;
  for (const auto& [block, array] : arrays) {
    const std::int64_t heads = array->shape[1], t = array->shape[2];
    for (std::int64_t h = 0; h < heads; ++h) {
      const double* p = array->values.data() + ((e * heads + h) * t) * t;
      Eigen::MatrixXd l(t, t);
      for (Eigen::Index i = 0; i < t; ++i)
        for (Eigen::Index j = 0; j < t; ++j) l(i, j) = p[i * t + j];
      l.colwise() -= l.rowwise().mean();
      out.push_back(-0.5 * (l + l.transpose()));
    }
  }
  return out;
}

}  // namespace loci::analysis
