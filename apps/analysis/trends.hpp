// Does a swept number decide a metric? For every setting a sweep takes through three or more numbers (the PE's
// sigma, most often) and every family of runs equal in all other settings: Spearman's rho of each metric with the
// setting over runs, a bootstrap interval, a permutation p fitted to the design and Holm over the table. One test
// per metric and family answers the paper's question ("does sigma decide the geometry and the accuracy?") where
// the pairwise comparisons split the same runs into many small tests (at five independent runs a pair, none of 12 or
// more can pass Holm: the smallest exact p is 1/126).
// Written as trends.csv and a summary.md section.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "apps/analysis/statistics.hpp"

namespace loci::analysis {

std::string write_trends(const std::vector<RunRecord>& runs, const std::vector<std::string>& metrics,
                         const std::filesystem::path& folder);

}  // namespace loci::analysis
