#include "models/interventions/intervention.hpp"

#include <cmath>
#include <stdexcept>

namespace loci::models {

LOCI_DEFINE_REGISTRY(Intervention, "intervention")

std::vector<const Intervention*> registered_interventions() {
  return ::loci::Registry<Intervention>::instance().in_order();
}

std::vector<torch::Tensor> permute_rows(const std::vector<torch::Tensor>& tables,
                                        const std::vector<int64_t>& permutation) {
  const torch::Tensor index = torch::tensor(permutation, torch::kInt64);
  std::vector<torch::Tensor> out;
  for (const auto& t : tables) {
    if (t.size(0) != index.size(0))
      throw std::invalid_argument("a permutation of " + std::to_string(index.size(0)) + " tokens for a table of " +
                                  std::to_string(t.size(0)) + " rows");
    out.push_back(t.index_select(0, index));
  }
  return out;
}

InterventionVariant relabelled(std::string name, const PEState& s, std::vector<int64_t> permutation) {
  InterventionVariant v(std::move(name), permute_rows(s.trained, permutation));
  v.distortion = distance_distortion(s.positions, permutation);
  v.permutation = std::move(permutation);
  return v;
}

double distance_distortion(const torch::Tensor& positions, const std::vector<int64_t>& permutation) {
  const torch::Tensor p = positions.to(torch::kFloat64);
  const torch::Tensor d = torch::cdist(p, p);
  const torch::Tensor index = torch::tensor(permutation, torch::kInt64);
  const torch::Tensor moved = d.index_select(0, index).index_select(1, index);
  const int64_t n = p.size(0);
  const torch::Tensor upper = torch::triu(torch::ones({n, n}, torch::kBool), 1);
  const double mean = d.masked_select(upper).mean().item<double>();
  if (!(mean > 0)) return 0.0;
  return (moved - d).abs().masked_select(upper).mean().item<double>() / mean;
}

}  // namespace loci::models
