#include "apps/analysis/onset.hpp"

#include <cmath>

namespace loci::analysis {

std::optional<std::int64_t> onset_epoch(const std::vector<OnsetPoint>& points) {
  if (points.empty() || points.front().epoch != 0 || !std::isfinite(points.front().value)) return std::nullopt;
  const double baseline = points.front().value;
  for (std::size_t i = 1; i < points.size(); ++i) {
    const OnsetPoint& p = points[i];
    if (!std::isfinite(p.value) || !std::isfinite(p.p_value)) continue;
    if (p.p_value < 0.05 && p.value - baseline > p.null_q95 - p.null_mean) return p.epoch;
  }
  return std::nullopt;
}

}  // namespace loci::analysis
