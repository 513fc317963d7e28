#pragma once
// Interventions on a trained model's PE: each replaces the [T, d] matrices the PE adds (one per placement) by others
// made from the trained ones, the epoch-0 draw and the true positions, so that evaluating the changed model says
// whether the model uses its PE, and whether it uses the PE's geometry or a lookup table of its draw. Each
// intervention is one file here that registers itself (LOCI_REGISTER(Intervention, ...)), so an extension can add one.
// An intervention may give several variants (permutations, symmetries, scales); the trainer evaluates each, on the
// whole model and on each placement alone.

#include <torch/types.h>

#include "core/registry.hpp"

#include <cstdint>
#include <functional>
#include <limits>
#include <string>
#include <utility>
#include <vector>

namespace loci::models {

// What an intervention is made from.
struct PEState {
  std::vector<torch::Tensor> trained;    // the trained PE: one [T, d] matrix per placement
  std::vector<torch::Tensor> initial;    // its epoch-0 matrices (the draw), the same shapes; empty when unknown
  torch::Tensor positions;               // [T, dims] true positions
  std::vector<torch::Tensor> oracle;     // the oracle PE (sinusoids of the true positions) per placement
  std::uint64_t seed = 0;                // for random variants (permutations)
  int64_t permutations = 5;              // how many random permutations permute_random draws
  std::vector<double> scales{0.5, 2.0};  // the norms rescale tries, as multiples of the trained PE's norm
};

// One way to change the PE: the matrices to evaluate with, one per placement.
struct InterventionVariant {
  InterventionVariant() = default;
  InterventionVariant(std::string n, std::vector<torch::Tensor> t) : name(std::move(n)), tables(std::move(t)) {}
  std::string name;  // e.g. "permute_random#2", "permute_symmetry:rot90", "rescale:0.5"
  std::vector<torch::Tensor> tables;
  // Token relabellings (permutations): how far the relabelling keeps the true distances, the mean absolute change
  // of the pairwise distances over their mean (0 for an exact symmetry); NaN for the others.
  double distortion = std::numeric_limits<double>::quiet_NaN();
  std::vector<int64_t> permutation;  // permuted variants: token i takes row permutation[i]; empty for the others
};

struct Intervention {
  std::string name, doc;
  bool needs_initial = false;  // needs the epoch-0 matrices (init, displacement)
  std::function<std::vector<InterventionVariant>(const PEState&)> make;
};

LOCI_DECLARE_REGISTRY(Intervention)

// Every registered intervention, in registration order (the order they are evaluated and reported in).
std::vector<const Intervention*> registered_interventions();

// A variant that relabels the tokens: the trained matrices' rows taken in the order `permutation` gives, with the
// relabelling's distance distortion on `s.positions`.
InterventionVariant relabelled(std::string name, const PEState& s, std::vector<int64_t> permutation);

// The rows of every matrix taken in the order `permutation` gives (row i of the result is row permutation[i]).
std::vector<torch::Tensor> permute_rows(const std::vector<torch::Tensor>& tables,
                                        const std::vector<int64_t>& permutation);
// Mean |D(pi(i), pi(j)) - D(i, j)| over pairs i < j, over the mean D(i, j): 0 for a relabelling that keeps every
// pairwise Euclidean distance of `positions`.
double distance_distortion(const torch::Tensor& positions, const std::vector<int64_t>& permutation);

}  // namespace loci::models
