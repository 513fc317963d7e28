// The functional connectivity (FC) of a dataset, as the paper compares learned PEs with it: the Pearson correlation
// between every two tokens' activity over all time points of all windows of one split. The analyses use the
// training split only, what a model could have learned from; held-out windows never enter it.
#pragma once

#include <Eigen/Core>

#include <string>

#include "datasets/reader.hpp"

namespace loci::analysis {

// T x T correlations of `array`, a float32 or float64 per-sample array shaped [token, time] (or [token] alone),
// over the samples of `split`. A token whose activity never varies has NaN correlations (1 on the diagonal).
// datasets::DataError when the array is missing, not floating point or not [token, ...].
Eigen::MatrixXd functional_connectivity(const datasets::Dataset& ds, const std::string& split,
                                        const std::string& array);

// The array a masked-regression trainer reads as its tokens when the config says `task.input: auto`
// (plugins/torch_trainer/data_feed.cpp): `tokens` when present, else `activity`; "" when the choice is not a
// floating-point [token, ...] array (the Latin square's symbols), where functional connectivity means nothing.
std::string activity_array(const datasets::Dataset& ds, const std::string& configured_input);

}  // namespace loci::analysis
