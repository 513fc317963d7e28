#include "probe/stats/survival.hpp"

#include <algorithm>
#include <cmath>

namespace loci::probe {

std::vector<KaplanMeierStep> kaplan_meier(const std::vector<SurvivalTime>& times) {
  std::vector<SurvivalTime> sorted = times;
  std::sort(sorted.begin(), sorted.end(), [](const SurvivalTime& a, const SurvivalTime& b) { return a.time < b.time; });
  std::vector<KaplanMeierStep> steps;
  double survival = 1, greenwood = 0;
  std::size_t i = 0;
  auto at_risk = static_cast<std::int64_t>(sorted.size());
  while (i < sorted.size()) {
    KaplanMeierStep s;
    s.time = sorted[i].time;
    s.at_risk = at_risk;
    for (; i < sorted.size() && sorted[i].time == s.time; ++i) (sorted[i].event ? s.events : s.censored) += 1;
    if (s.events > 0) {
      const double n = static_cast<double>(s.at_risk), d = static_cast<double>(s.events);
      survival *= 1.0 - d / n;
      if (n > d) greenwood += d / (n * (n - d));
    }
    s.survival = survival;
    // Exponential Greenwood: an interval on log(-log S), which stays inside [0, 1].
    if (survival > 0 && survival < 1) {
      const double log_s = std::log(survival);
      const double half = 1.959963984540054 * std::sqrt(greenwood) / std::abs(log_s);
      const double centre = std::log(-log_s);
      s.ci_low = std::exp(-std::exp(centre + half));
      s.ci_high = std::exp(-std::exp(centre - half));
    } else {
      s.ci_low = s.ci_high = survival;
    }
    steps.push_back(s);
    at_risk -= s.events + s.censored;
  }
  return steps;
}

}  // namespace loci::probe
