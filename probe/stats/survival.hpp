// Onsets as censored data: a run whose PE never took the shape is not dropped but censored at its last evaluation,
// so "the fraction of runs with an onset by epoch t" counts what is known of every run (Kaplan-Meier).
#pragma once

#include <cstdint>
#include <vector>

namespace loci::probe {

struct SurvivalTime {
  double time = 0;     // the onset epoch, or the last evaluation when there was none
  bool event = false;  // true: an onset at `time`; false: censored there
};

struct KaplanMeierStep {
  double time = 0;
  std::int64_t at_risk = 0, events = 0, censored = 0;
  double survival = 1;             // S(t): the estimated fraction still without an onset just after t
  double ci_low = 1, ci_high = 1;  // 95% interval of S(t) (Greenwood's variance on the log(-log S) scale)
};

// One step at each distinct time with an event or a censoring, in time order. Censorings at an event's time are
// counted as at risk at that event (the usual convention).
std::vector<KaplanMeierStep> kaplan_meier(const std::vector<SurvivalTime>& times);

}  // namespace loci::probe
