// The options of an analysis, declared once: a pipeline's analyze stage reads its keys (metric, knn, mds_dims,
// attention_reference) and `loci analyze` offers the same as flags (--metric, --knn, --mds-dims,
// --attention-reference), each with the type, range, choices, default and doc declared here.
#pragma once

#include "apps/analysis/analyze_run.hpp"
#include "core/config/options.hpp"

namespace loci::analysis {

const config::OptionTable<AnalyzeOptions>& analyze_options();

}  // namespace loci::analysis
