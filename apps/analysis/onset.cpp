#include "apps/analysis/onset.hpp"

#include <cmath>

namespace loci::analysis {

bool took_shape(const OnsetPoint& p, double baseline) {
  if (!std::isfinite(p.value) || !std::isfinite(p.p_value) || !std::isfinite(baseline)) return false;
  return p.p_value < 0.05 && p.value - baseline > p.null_q95 - p.null_mean;
}

std::optional<std::int64_t> onset_epoch(const std::vector<OnsetPoint>& points) {
  if (points.empty() || points.front().epoch != 0 || !std::isfinite(points.front().value)) return std::nullopt;
  const double baseline = points.front().value;
  for (std::size_t i = 1; i < points.size(); ++i)
    if (took_shape(points[i], baseline)) return points[i].epoch;
  return std::nullopt;
}

}  // namespace loci::analysis
