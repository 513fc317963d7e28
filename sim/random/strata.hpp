// Deterministic stratification: which stratum (class) item i of a split belongs to, so that every prefix of the
// split holds the strata in proportion to their weights (smooth weighted round-robin). Equal weights give
// 0, 1, 2, 0, 1, 2, ...; the sequence depends only on the weights, never on threads or shard sizes.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <vector>

namespace loci::sim {

inline std::vector<std::int8_t> stratify(const std::vector<double>& weights, std::int64_t count) {
  double total = 0;
  for (double w : weights) {
    if (!(w >= 0)) throw std::invalid_argument("stratum weights must be >= 0");
    total += w;
  }
  if (total <= 0) throw std::invalid_argument("at least one stratum weight must be > 0");
  std::vector<double> credit(weights.size(), 0.0);
  std::vector<std::int8_t> out(static_cast<std::size_t>(count));
  for (auto& o : out) {
    std::size_t best = 0;
    for (std::size_t c = 0; c < weights.size(); ++c) {
      credit[c] += weights[c];
      if (credit[c] > credit[best]) best = c;
    }
    credit[best] -= total;
    o = static_cast<std::int8_t>(best);
  }
  return out;
}

}  // namespace loci::sim
