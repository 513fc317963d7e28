// What a run's optional files add to its analysis: robustness.csv (train.robustness_noise) and interventions.json
// (loci intervene), each read within the run folder's bounds.
#pragma once

#include <nlohmann/json.hpp>

#include "apps/analysis/run_folder.hpp"

namespace loci::analysis {

// Each split's accuracy or MSE at each noise sd: [{split, noise_std, accuracy, mse}]; empty when the run wrote none.
nlohmann::ordered_json robustness_of(const RunFolder& run);
// The model's scores with its PE changed, as loci intervene wrote them; null when it has not run.
nlohmann::ordered_json interventions_of(const RunFolder& run);

}  // namespace loci::analysis
