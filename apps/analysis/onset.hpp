// When a probe's value leaves its baseline: the regime map's onset. The first evaluation after epoch 0 whose
// statistic is permutation-significant (p < 0.05) and exceeds its epoch-0 value by more than the null's own spread
// at that evaluation (its 95th percentile minus its mean), so that neither a value already high at initialisation
// nor a drift within the null counts as the geometry appearing.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

namespace loci::analysis {

struct OnsetPoint {
  std::int64_t epoch = 0;
  double value = 0, p_value = 1, null_mean = 0, null_q95 = 0;
};

// loci's one definition of "took the shape" (the onset, the summary and the report's reading all use it): at this
// evaluation the statistic is permutation-significant and above `baseline` (its epoch-0 value) by more than the
// null's spread.
bool took_shape(const OnsetPoint& point, double baseline);

// `points` in evaluation order, the first at epoch 0 (else no onset can be measured: nullopt).
std::optional<std::int64_t> onset_epoch(const std::vector<OnsetPoint>& points);

}  // namespace loci::analysis
